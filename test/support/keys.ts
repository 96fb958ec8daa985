import { parseApiKey } from "../../lib/auth/credentials.mjs";

/** The secret part of an API key (`fl_<id>_<secret>`; base64url, so it may itself hold "_"). */
export function secretOf(key: string): string {
  const parsed = parseApiKey(key);
  if (!parsed) throw new Error(`not an API key: ${JSON.stringify(key.slice(0, 24))}`);
  return parsed.secret;
}
