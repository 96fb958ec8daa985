/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its WASM and data files relative to its own module: bundling breaks that.
  // Piscina starts its worker threads from files of its own, and lib/measure/pool.ts names the
  // measurement's worker by its path in the repository.
  serverExternalPackages: ["@electric-sql/pglite", "postgres", "piscina"],
  poweredByHeader: false,
  // Several builds can live side by side (e2e runs, benchmarks): each names its own folder.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // `npm test` type-checks the whole project with tsc first; checking again in every build
  // only slows `npm start` down.
  typescript: { ignoreBuildErrors: true },
  // `forbidden()`: a viewer on an admin page, or a page asked for under a host we do not serve.
  experimental: { authInterrupts: true },
  async headers() {
    return [
      { source: "/:path*", headers: securityHeaders() },
      // Pages served by scripts/start.ts carry a policy with a nonce of their own (it sets the
      // request's Content-Security-Policy header for Next.js to read the nonce from, and the
      // answer's): this one is only for everything else, and for `next dev` / a bare `next start`.
      // Not for the route handlers that answer a policy of their own (stored content as text,
      // the API reference): a header set here would replace theirs.
      {
        source: "/:path((?!docs/api$|originals/[^/]+/content$|api/v1/originals/[^/]+$).*)",
        missing: [{ type: "header", key: "content-security-policy" }],
        headers: [{ key: "Content-Security-Policy", value: fallbackPolicy() }],
      },
    ];
  },
};

function securityHeaders() {
  return [
    { key: "X-Frame-Options", value: "DENY" },
    { key: "X-Content-Type-Options", value: "nosniff" },
    { key: "Referrer-Policy", value: "same-origin" },
  ];
}

// Without a nonce, Next's inline bootstrap scripts need 'unsafe-inline'; still only from this
// origin's document, and nothing may load from elsewhere, frame us, or post a form away.
function fallbackPolicy() {
  const dev = process.env.NODE_ENV !== "production";
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? " ws:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
  return csp;
}

export default nextConfig;
