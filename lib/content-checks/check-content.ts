// Server-side content checks. When a receipt
// carries the pass's output, the server measures for itself what the client only claims:
// the size, the hash, parseability in the policy's format and the policy's required fields.
// The verdict on those findings comes from the one guard (evaluatePass), never a copy of its gates.
import { type CompressionPass, type CompressionPolicy, evaluatePass, type Verdict } from "../guard/guard";
import { ApiError } from "../errors";
import { sha256Hex } from "../guard/hash";
import { MAX_JSON_DEPTH } from "../schemas/common";

import type { DetailedMeasurement, FactCounts } from "../measure/index";
import type { ContentFormat, DecodedFormat } from "./formats";

export {
  CONTENT_FORMATS,
  type ContentFormat,
  DECODED_FORMATS,
  type DecodedFormat,
  DEFAULT_CONTENT_FORMAT,
  MAX_CONTENT_BYTES,
} from "./formats";
/** A pathological document could miss a field in millions of places; a few examples say enough. */
const MAX_PROBLEMS = 20;

export interface ContentPolicy extends CompressionPolicy {
  format: ContentFormat;
  decoded_format?: DecodedFormat | null;
  required_fields: readonly string[];
}

export interface ServerChecks {
  size_matches: boolean;
  /** null when the receipt's hash is not a SHA-256 (64 hex), so there is nothing to compare. */
  hash_matches: boolean | null;
  parseable: boolean;
  schema_valid: boolean;
  problems: string[];
  /** With the chain's source: the measured density (docs/measurement.md) and the facts behind it. */
  semantic_density_score?: number;
  /** The parts of that density (since floorline-facts/4). */
  components?: Record<string, number>;
  /** The method that measured it; absent on passes measured before floorline-facts/4. */
  method?: string;
  facts?: FactCounts | null;
  lost_examples?: string[];
  /** Facts the content lost but a CCR marker in it makes recoverable, with the original's hash. */
  recoverable_examples?: { fact: string; hash: string }[];
  /** The guard on the measured values and the guard on the client's claims disagree. */
  measurement_mismatch?: boolean;
}

/**
 * What measuring the content against the chain's source gave (lib/measure/pool.ts measures off
 * the request thread): a measurement, or "failed" when it ran past its budget.
 */
export type MeasuredContent = DetailedMeasurement | "failed";

interface ContentFindings {
  server_checks: ServerChecks;
  /** The guard's verdict on the server's own findings (its size, parseability, schema check). */
  checked_verdict: Verdict;
  /** The content contradicts something the client claimed about it. */
  checked_mismatch: boolean;
  /** What the server measured, for storing beside the client's claims. */
  size_bytes: number;
  sha256: string;
}

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
// Strict: the standard alphabet, whole quanta, padding only at the end. No whitespace, no
// URL-safe letters, no missing padding: a lenient decoder would pass content a strict consumer refuses.
const BASE64_STRICT = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UTF8 = new TextDecoder("utf-8", { fatal: true });

type Parsed = { ok: true; json: unknown; isJson: boolean } | { ok: false; problem: string };

function parseJson(text: string, what: string): Parsed {
  try {
    return { ok: true, json: JSON.parse(text), isJson: true };
  } catch (error) {
    return { ok: false, problem: `${what} is not valid JSON: ${(error as Error).message}` };
  }
}

// `any` and `text` accept every string; JSON is still looked for so that required fields can be checked.
function lenient(text: string): Parsed {
  const json = parseJson(text, "content");
  return json.ok ? json : { ok: true, json: undefined, isJson: false };
}

function parseIn(content: string, policy: ContentPolicy): Parsed {
  switch (policy.format) {
    case "json":
      return parseJson(content, "content");
    case "text":
    case "any":
      return lenient(content);
    case "base64": {
      if (!BASE64_STRICT.test(content)) {
        return { ok: false, problem: "content is not strict base64 (standard alphabet, padded, no whitespace)" };
      }
      const bytes = Buffer.from(content, "base64");
      const inner = policy.decoded_format ?? "any";
      if (inner === "any") return { ok: true, json: undefined, isJson: false };
      let text: string;
      try {
        text = UTF8.decode(bytes);
      } catch {
        return { ok: false, problem: "the base64 content does not decode to UTF-8 text" };
      }
      return inner === "json" ? parseJson(text, "the decoded base64 content") : lenient(text);
    }
  }
}

/** Whether a parsed JSON value nests arrays and objects deeper than `max`, found without recursion. */
function nestsDeeperThan(root: unknown, max: number): boolean {
  const stack: Array<[value: unknown, depth: number]> = [[root, 0]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [value, depth] = top;
    if (value === null || typeof value !== "object") continue;
    if (depth >= max) return true;
    for (const v of Object.values(value)) stack.push([v, depth + 1]);
  }
  return false;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Where a dot path fails to hold, as printable locations. Through an array the path must hold
 * for every item (an empty array holds vacuously); a segment of digits on an array indexes it.
 */
export function missingPaths(root: unknown, path: string, limit = MAX_PROBLEMS): string[] {
  const segments = path.split(".");
  const misses: string[] = [];
  const walk = (value: unknown, i: number, at: string) => {
    const segment = segments[i];
    if (misses.length >= limit || segment === undefined) return;
    if (Array.isArray(value)) {
      if (/^[0-9]+$/.test(segment)) {
        const index = Number(segment);
        if (index < value.length) walk(value[index], i + 1, `${at}[${index}]`);
        else misses.push(`${at}[${index}]`);
        return;
      }
      for (const [k, item] of value.entries()) walk(item, i, `${at}[${k}]`);
      return;
    }
    const here = at === "" ? segment : `${at}.${segment}`;
    if (isRecord(value) && Object.hasOwn(value, segment)) walk(value[segment], i + 1, here);
    else misses.push(here);
  };
  walk(root, 0, "");
  return misses;
}

function utf8Length(content: string): number {
  return Buffer.byteLength(content, "utf8");
}

export function checkContent(
  content: string,
  claims: Pick<CompressionPass, "current_size_bytes" | "current_content_hash">,
  policy: ContentPolicy,
): { checks: ServerChecks; sizeBytes: number; sha256: string } {
  const problems: string[] = [];
  const sizeBytes = utf8Length(content);
  const size_matches = sizeBytes === claims.current_size_bytes;
  if (!size_matches) {
    problems.push(
      `content is ${sizeBytes} bytes as UTF-8; the receipt says current_size_bytes ${claims.current_size_bytes}`,
    );
  }
  const sha256 = sha256Hex(content);
  let hash_matches: boolean | null = null;
  if (SHA256_HEX.test(claims.current_content_hash)) {
    hash_matches = claims.current_content_hash.toLowerCase() === sha256;
    if (!hash_matches) {
      problems.push(
        `content's SHA-256 is ${sha256}; the receipt says current_content_hash ${claims.current_content_hash}`,
      );
    }
  }
  const parsed = parseIn(content, policy);
  const parseable = parsed.ok;
  if (!parsed.ok) problems.push(`${parsed.problem} (policy format: ${policy.format})`);

  let schema_valid = parseable;
  if (parsed.ok && policy.required_fields.length > 0) {
    if (!parsed.isJson) {
      schema_valid = false;
      problems.push(`the policy requires fields (${policy.required_fields.join(", ")}) but the content is not JSON`);
    } else {
      // The walk below recurses per level: content nested past the JSON reader's depth is
      // refused like such a request body, where it would otherwise overflow the stack.
      if (nestsDeeperThan(parsed.json, MAX_JSON_DEPTH)) {
        throw new ApiError(
          "validation_failed",
          `The policy requires fields, so the content must nest JSON at most ${MAX_JSON_DEPTH} levels deep.`,
          {
            issues: [
              {
                path: "content",
                message: `must be nested at most ${MAX_JSON_DEPTH} levels deep to check required fields`,
              },
            ],
          },
        );
      }
      for (const field of policy.required_fields) {
        const misses = missingPaths(parsed.json, field);
        if (misses.length === 0) continue;
        schema_valid = false;
        if (problems.length < MAX_PROBLEMS) {
          const where =
            misses.length === 1 && misses[0] === field
              ? ""
              : ` (at ${misses.slice(0, 3).join(", ")}${misses.length > 3 ? ", ..." : ""})`;
          problems.push(`required field '${field}' is missing${where}`);
        }
      }
    }
  }
  return {
    checks: { size_matches, hash_matches, parseable, schema_valid, problems: problems.slice(0, MAX_PROBLEMS) },
    sizeBytes,
    sha256,
  };
}

/**
 * The whole server-side judgement of a receipt with content. `checked_verdict` is the guard run on
 * the server's findings in place of the client's (size, parseability, schema, and, when the
 * chain's source is known, the measured density); without a source the client's density
 * stands, since there is nothing to measure it against.
 */
export function judgeContent(
  content: string,
  pass: CompressionPass,
  policy: ContentPolicy,
  measured?: MeasuredContent | null,
): ContentFindings {
  const { checks, sizeBytes, sha256 } = checkContent(content, pass, policy);
  let density = pass.semantic_density_score;
  if (measured === "failed" && checks.problems.length < MAX_PROBLEMS)
    checks.problems.push("the content could not be measured within its budget: its density is the client's");
  if (measured && measured !== "failed") {
    density = measured.semantic_density_score;
    checks.semantic_density_score = density;
    checks.components = measured.components;
    checks.method = measured.method;
    checks.facts = measured.facts;
    checks.lost_examples = measured.lost_examples;
    checks.recoverable_examples = measured.recoverable_examples;
  }
  const checked = evaluatePass(
    {
      ...pass,
      current_size_bytes: sizeBytes,
      is_parseable: checks.parseable,
      schema_valid: checks.schema_valid,
      semantic_density_score: density,
    },
    policy,
  );
  if (measured && measured !== "failed")
    checks.measurement_mismatch = checked.verdict !== evaluatePass(pass, policy).verdict;
  // A mismatch is a claim the content contradicts: a wrong size or hash, or "parseable" /
  // "schema valid" claimed where the server finds otherwise. A client that is stricter than
  // the policy (claims false where the server finds true) contradicts nothing.
  const checked_mismatch =
    !checks.size_matches ||
    checks.hash_matches === false ||
    (pass.is_parseable && !checks.parseable) ||
    (pass.schema_valid && !checks.schema_valid);
  return { server_checks: checks, checked_verdict: checked.verdict, checked_mismatch, size_bytes: sizeBytes, sha256 };
}
