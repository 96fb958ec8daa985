// Why the guard decided what it did: every check of the floor with the pass's value against
// the limit, and the gate that decided. The guard (guard.ts) stops at the first failing gate
// and says only that; this lists them all, in the guard's order and with its comparisons
// (the unit tests hold the two equal on random passes and policies). The directive shown
// stays the guard's own text.
import { type CompressionPass, type CompressionPolicy, evaluatePass, type Verdict } from "./guard";

export type GateKey =
  | "first_pass"
  | "max_pass_number"
  | "parseable"
  | "schema_valid"
  | "min_size_bytes"
  | "min_semantic_density";

interface GateCheck {
  key: GateKey;
  /** What is checked, in words. */
  label: string;
  /** The policy field that sets the limit, if any. */
  field: string | null;
  /** The pass's value and the limit, as shown. */
  value: string;
  limit: string;
  /** For `first_pass`: the pass is a first pass (which decides by itself); otherwise the check holds. */
  ok: boolean;
  /** The verdict this gate gives when it decides. */
  verdict: Verdict;
  /** This is the gate the guard stopped at. */
  decided: boolean;
  /** A later gate that fails too, which the guard never reached. */
  unreached_failure: boolean;
  /** What the server found in the content itself, when it checked (missing fields, parse errors). */
  problems: string[];
  /**
   * For parseable and schema_valid: the server's own check of the content (null when it made
   * none). The gate judges the claim; where the two disagree the check is shown beside it.
   */
  checked: boolean | null;
}

/** What the server measured in the pass's content, when the receipt carried it (see server_checks). */
export interface ServerContentChecks {
  parseable: boolean;
  schema_valid: boolean;
  problems: string[];
}

interface PassExplanation {
  verdict: Verdict;
  directive: string;
  checks: GateCheck[];
}

/**
 * The checks of `policy` on `pass` in the guard's gate order. The first pass (number ≤ 1) is
 * never judged against the floor: the guard answers NO_RECURSIVE_COMPRESSION at once, and the
 * other checks are listed as not reached.
 */
export function explainPass(
  pass: CompressionPass,
  policy: CompressionPolicy,
  serverChecks?: ServerContentChecks | null,
): PassExplanation {
  const manifest = evaluatePass(pass, policy);
  const problems = serverChecks?.problems ?? [];
  const parseProblems = serverChecks && !serverChecks.parseable ? problems : [];
  const schemaProblems = serverChecks && serverChecks.parseable && !serverChecks.schema_valid ? problems : [];
  // A schema is checked only on content that parses: unparseable content fails it too.
  const checkedSchema = serverChecks ? serverChecks.parseable && serverChecks.schema_valid : null;
  const gates: Omit<GateCheck, "decided" | "unreached_failure">[] = [
    {
      key: "first_pass",
      label: "First pass (never judged)",
      field: null,
      value: String(pass.pass_number),
      limit: "≤ 1",
      ok: pass.pass_number <= 1,
      verdict: "NO_RECURSIVE_COMPRESSION",
      problems: [],
      checked: null,
    },
    {
      key: "max_pass_number",
      label: "Pass number",
      field: "max_pass_number",
      value: String(pass.pass_number),
      limit: `≤ ${policy.max_pass_number}`,
      ok: !(pass.pass_number > policy.max_pass_number),
      verdict: "COLLAPSE_IMMINENT",
      problems: [],
      checked: null,
    },
    {
      key: "parseable",
      label: "Parseable",
      field: null,
      value: pass.is_parseable ? "yes" : "no",
      limit: "yes",
      ok: pass.is_parseable,
      verdict: "FLOOR_BREACH_DETECTED",
      problems: parseProblems,
      checked: serverChecks ? serverChecks.parseable : null,
    },
    {
      key: "schema_valid",
      label: "Schema valid",
      field: "required_fields",
      value: pass.schema_valid ? "yes" : "no",
      limit: "yes",
      ok: pass.schema_valid,
      verdict: "FLOOR_BREACH_DETECTED",
      problems: schemaProblems,
      checked: checkedSchema,
    },
    {
      key: "min_size_bytes",
      label: "Size",
      field: "min_size_bytes",
      value: `${pass.current_size_bytes} bytes`,
      limit: `≥ ${policy.min_size_bytes} bytes`,
      ok: !(pass.current_size_bytes < policy.min_size_bytes),
      verdict: "COLLAPSE_IMMINENT",
      problems: [],
      checked: null,
    },
    {
      key: "min_semantic_density",
      label: "Density",
      field: "min_semantic_density",
      value: String(pass.semantic_density_score),
      limit: `≥ ${policy.min_semantic_density}`,
      ok: !(pass.semantic_density_score < policy.min_semantic_density),
      verdict: "COLLAPSE_IMMINENT",
      problems: [],
      checked: null,
    },
  ];
  // The first pass decides when it holds; every other gate decides when it fails.
  const decides = (g: (typeof gates)[number]) => (g.key === "first_pass" ? g.ok : !g.ok);
  const decidedIndex = gates.findIndex(decides);
  const checks = gates.map((g, i) => ({
    ...g,
    decided: i === decidedIndex,
    unreached_failure: decidedIndex !== -1 && i > decidedIndex && g.key !== "first_pass" && !g.ok,
  }));
  return { verdict: manifest.verdict, directive: manifest.directive, checks };
}

/** The verdict the listed checks give on their own (SAFE_TO_COMPRESS when no gate decides). */
export function verdictOfChecks(checks: readonly GateCheck[]): Verdict {
  return checks.find((c) => c.decided)?.verdict ?? "SAFE_TO_COMPRESS";
}
