// Python-compatible text primitives. The reference implementations are Python; their
// digests and directives depend on how Python prints floats, serialises JSON, strips
// whitespace and sorts strings, and each of those differs from JavaScript's default.

const ASCII_ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

// Printable ASCII other than '"' and '\\': written as is.
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** `json.dumps(s, ensure_ascii=True)` for one string: everything outside space..tilde is escaped. */
export function pyJsonString(value: string): string {
  return '"' + pyJsonChars(value) + '"';
}

/** pyJsonString without its quotes: the string's characters as they are written inside them. */
export function pyJsonChars(value: string): string {
  if (PLAIN_ASCII.test(value)) return value;
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const ch = value.charAt(i);
    const code = value.charCodeAt(i);
    if (code >= 0x20 && code <= 0x7e && ch !== '"' && ch !== "\\") {
      out += ch;
    } else if (ASCII_ESCAPES[ch] !== undefined) {
      out += ASCII_ESCAPES[ch];
    } else {
      // UTF-16 code units are exactly what Python writes for astral characters (a surrogate pair).
      out += "\\u" + code.toString(16).padStart(4, "0");
    }
  }
  return out;
}

export type PyJson = string | number | boolean | null | readonly PyJson[] | { readonly [key: string]: PyJson };

interface PyDumpsOptions {
  /** Python's default is `(", ", ": ")`. */
  separators?: readonly [item: string, key: string];
}

/** `json.dumps(value, sort_keys=True, ensure_ascii=True)` for the value shapes the references hash. */
export function pyJsonDumps(value: PyJson, options: PyDumpsOptions = {}): string {
  const [itemSep, keySep] = options.separators ?? [", ", ": "];
  const encode = (v: PyJson): string => {
    if (v === null) return "null";
    if (typeof v === "string") return pyJsonString(v);
    if (typeof v === "boolean") return v ? "true" : "false";
    if (typeof v === "number") {
      if (!Number.isInteger(v)) throw new TypeError("pyJsonDumps only encodes integers; format floats first");
      return String(v);
    }
    if (Array.isArray(v)) return "[" + v.map(encode).join(itemSep) + "]";
    const obj = v as { readonly [key: string]: PyJson };
    const keys = Object.keys(obj);
    // Without surrogates, UTF-16 order (the default sort) is code point order.
    keys.sort(keys.some((k) => SURROGATE.test(k)) ? compareCodePoints : undefined);
    return "{" + keys.map((k) => pyJsonString(k) + keySep + encode(obj[k] ?? null)).join(itemSep) + "}";
  };
  return encode(value);
}

const SURROGATE = /[\ud800-\udfff]/;

/** Python's `sorted()` order for str: by code point, not by UTF-16 code unit. */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    // Iterating a string yields whole code points, never an empty string.
    const cx = x.value.codePointAt(0) ?? 0;
    const cy = y.value.codePointAt(0) ?? 0;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}

// Characters for which Python's str.isspace() is true; JavaScript's trim() differs
// (it strips U+FEFF and keeps U+001C..U+001F and U+0085).
const PY_WHITESPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
  0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

/** Python's `str.strip()` with no arguments. */
export function pyStrip(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && PY_WHITESPACE.has(value.charCodeAt(start))) start++;
  while (end > start && PY_WHITESPACE.has(value.charCodeAt(end - 1))) end--;
  return value.slice(start, end);
}

/**
 * Python's `f"{x:.{digits}f}"`: the exact binary value of `x`, rounded half to even.
 * `Number.prototype.toFixed` rounds exact ties away from zero (0.125 -> "0.13" where
 * Python prints "0.12"), so the decimal is computed from the double's bits instead.
 */
export function pyFormatFixed(x: number, digits: number): string {
  if (!Number.isFinite(x)) {
    if (Number.isNaN(x)) return "nan";
    return x > 0 ? "inf" : "-inf";
  }
  // toFixed is exact too, except that it rounds exact ties away from zero; a tie needs
  // x * 2^(digits+1) to be an odd integer, and only then is the slow path needed.
  if (Math.abs(x) < 1e21 && !Object.is(x, -0) && digits <= 20) {
    const scaled = x * 2 ** (digits + 1);
    if (!Number.isInteger(scaled) || scaled % 2 === 0) return x.toFixed(digits);
  }
  const negative = x < 0 || Object.is(x, -0);
  const [mantissa, exponent] = decompose(Math.abs(x));
  // |x| = mantissa * 2^exponent; scaled = |x| * 10^digits as the fraction num / den.
  let num = mantissa * 10n ** BigInt(digits);
  let den = 1n;
  if (exponent >= 0) num <<= BigInt(exponent);
  else den <<= BigInt(-exponent);
  let q = num / den;
  const twiceRemainder = (num % den) * 2n;
  if (twiceRemainder > den || (twiceRemainder === den && q % 2n === 1n)) q += 1n;
  let text = q.toString();
  if (digits > 0) {
    text = text.padStart(digits + 1, "0");
    text = text.slice(0, -digits) + "." + text.slice(-digits);
  }
  return (negative ? "-" : "") + text;
}

function decompose(x: number): [bigint, number] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biasedExponent = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  if (biasedExponent === 0) return [fraction, -1074];
  return [fraction | (1n << 52n), biasedExponent - 1075];
}
