/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its WASM and data files relative to its own module: bundling breaks that.
  serverExternalPackages: ["@electric-sql/pglite", "postgres"],
  poweredByHeader: false,
  // Keep dev and build output apart so `next dev` never clobbers the build `npm start` serves.
  distDir: process.env.NEXT_DIST_DIR || ".next",
};

export default nextConfig;
