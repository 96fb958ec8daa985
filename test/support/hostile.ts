// Hostile inputs for the fuzz suites: values a careless or malicious client sends in query
// strings, cursors, path segments, headers and bodies. Shared by the in-process fuzz test
// (every route handler) and the over-HTTP one (every route and page of the built app).
import fc from "fast-check";

/** encodeURIComponent that also takes lone surrogates (as their UTF-8 replacement bytes). */
export function encode(value: string): string {
  try {
    return encode(value);
  } catch {
    return [...Buffer.from(value, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0").toUpperCase()}`).join("");
  }
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");

/** Values that broke, or could break, a parser, a cast or a database comparison. */
export const NASTY_VALUES = [
  "",
  " ",
  "\u0000",
  "\ud800",
  "%",
  "%FF",
  "%C0%AF",
  "%E2%82",
  "%00",
  "..",
  "../../etc/passwd",
  "' or 1=1 --",
  "<script>alert(1)</script>",
  "-1",
  "0",
  "1e308",
  "-1e308",
  "NaN",
  "Infinity",
  "3000000000",
  "9223372036854775808",
  "99999999999999999999999999",
  "0.5",
  "true",
  "null",
  "[]",
  "{}",
  "0000-01-01T00:00:00Z",
  "9999-12-31T23:59:59.999Z",
  "2026-02-30T00:00:00Z",
  "a".repeat(300),
  "9".repeat(400),
  b64([-1, "x"]),
  b64([1e308, "x"]),
  b64(["NaN", "x"]),
  // Written as text: the number does not fit a double, which is the point.
  Buffer.from('[9223372036854775808,"x"]', "utf8").toString("base64url"),
  b64(["0000-01-01T00:00:00Z", "x"]),
  b64(["0000-01-01T00:00:00.000Z", "x"]),
  b64([null, null]),
  b64([]),
  b64([1, 2, 3, 4]),
  b64({ a: 1 }),
  b64("\u0000"),
  b64([0, 0]),
  b64([Number.MAX_SAFE_INTEGER, 0]),
  b64(["x", -5]),
] as const;

/** Query parameter names the routes and pages read, and a few they do not. */
export const PARAM_NAMES = [
  "cursor",
  "limit",
  "sort",
  "order",
  "status",
  "content_class",
  "q",
  "format",
  "part",
  "offset",
  "length",
  "download",
  "range",
  "from",
  "to",
  "since",
  "until",
  "tool",
  "tool_name",
  "chain_id",
  "chain",
  "hash",
  "prefix",
  "digest",
  "mismatch",
  "integrity",
  "service",
  "pass",
  "after",
  "before",
  "size",
  "dir",
  "raw",
  "class",
  "candidate",
  "min_size_bytes",
  "min_semantic_density",
  "max_pass_number",
  "tab",
  "next",
  "__proto__",
  "constructor",
] as const;

export const hostileValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_VALUES) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
  { weight: 2, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => b64(v)) },
);

/** A query string (without the `?`), possibly repeating keys, possibly badly encoded. */
export const hostileQuery: fc.Arbitrary<string> = fc
  .array(
    fc.tuple(
      fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...PARAM_NAMES) },
        { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
      ),
      hostileValue,
      fc.boolean(),
    ),
    { maxLength: 6 },
  )
  .map((pairs) =>
    pairs
      .map(([key, value, raw]) =>
        // Half the time the value goes in unencoded, as a sloppy client would write it.
        raw && /^[\x21-\x7e]*$/.test(value) && !value.includes("#")
          ? `${encode(key)}=${value}`
          : `${encode(key)}=${encode(value)}`,
      )
      .join("&"),
  );

/** A path segment: mostly encoded hostile text, sometimes raw broken percent-encoding. */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: hostileValue.map((v) => encode(v)) },
  { weight: 1, arbitrary: fc.constantFrom("%FF", "%C0%AF", "%E2%82", "%", "%zz", "a%2Fb", "%2e%2e", "%00") },
);

export const hostileBody: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
  {
    weight: 2,
    arbitrary: fc
      .dictionary(fc.constantFrom(...PARAM_NAMES, "receipts", "boundaries", "nodes", "pass", "policy"), hostileValue)
      .map((v) => JSON.stringify(v)),
  },
  { weight: 1, arbitrary: fc.constantFrom("{", "[", '{"a":', "\u0000", '{"receipts": [1e999]}', "null", '""') },
);

export const hostileContentType: fc.Arbitrary<string | undefined> = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "application/json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/x-protobuf",
  "application/json; charset=latin1",
  undefined,
);

/** `{name}` segments of a registry pattern. */
export function patternParams(pattern: string): string[] {
  return [...pattern.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? "");
}

/** True when a body is the contract's error shape. */
export function isContractError(body: unknown): boolean {
  if (typeof body !== "object" || body === null) return false;
  const keys = Object.keys(body);
  if (keys.length !== 1 || keys[0] !== "error") return false;
  const error = (body as { error: unknown }).error;
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === "string" && /^[a-z][a-z0-9_]*$/.test(code) && typeof message === "string" && message !== "";
}
