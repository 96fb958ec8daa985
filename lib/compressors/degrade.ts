// A base64 re-encoder that loses bytes: each pass decodes, keeps the first `keep` share of the
// bytes (cutting wherever that falls, as a byte-budgeted transcoder does) and encodes again.
// The result is always valid base64; once a cut lands inside a multi-byte character, what it
// decodes to is no longer text.

export function degradeBase64(encoded: string, keep = 0.75): string {
  const bytes = Buffer.from(encoded, "base64");
  return bytes.subarray(0, Math.floor(bytes.length * keep)).toString("base64");
}

/** The first pass of such a chain: a text attachment put into the context as base64, whole. */
export function encodeBase64(text: string): string {
  return Buffer.from(text, "utf8").toString("base64");
}
