// The Content-Security-Policy of pages served by scripts/start.ts: scripts only from this
// origin or carrying the request's nonce (Next.js puts it on its own inline scripts when the
// request carries the policy), plus the theme boot script by its hash, since it is ours and
// constant. No 'unsafe-inline' for scripts, so an injected <script> does not run. Styles
// keep 'unsafe-inline': React and the charts set style attributes.
import { createHash, randomBytes } from "node:crypto";
import { THEME_BOOT_SCRIPT } from "../theme";

const THEME_HASH = `'sha256-${createHash("sha256").update(THEME_BOOT_SCRIPT, "utf8").digest("base64")}'`;

export function newNonce(): string {
  return randomBytes(18).toString("base64");
}

export function pagePolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' ${THEME_HASH}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** HSTS for answers that went out over https (said by a trusted proxy): half a year, this host only. */
export const STRICT_TRANSPORT_SECURITY = "max-age=15552000";
