// The content formats a policy can name, apart from the checks themselves so that schemas
// and client components can use them without pulling in hashing.
export const CONTENT_FORMATS = ["json", "base64", "text", "any"] as const;
export type ContentFormat = (typeof CONTENT_FORMATS)[number];
/** What base64 content decodes to, when the policy says (`decoded_format`). */
export const DECODED_FORMATS = ["json", "text", "any"] as const;
export type DecodedFormat = (typeof DECODED_FORMATS)[number];
export const DEFAULT_CONTENT_FORMAT: ContentFormat = "any";

/** Content rides in the receipt body, so it stays well inside the 10 MiB body limit. */
export const MAX_CONTENT_BYTES = 4 * 1024 * 1024;

/** Whose semantic density a class's chains follow: the client's claim, or the server's measurement. */
export const DENSITY_SOURCES = ["client", "measured"] as const;
export type DensitySource = (typeof DENSITY_SOURCES)[number];
export const DEFAULT_DENSITY_SOURCE: DensitySource = "client";
