// Integrity of a compression chain, from its receipts and boundaries alone. The SQL in
// db/queries/chain-summary.ts and db/queries/chain-series.ts counts the same findings, and
// lib/chains/downsample.ts flags the same passes; keep them in step.

import type { BoundaryStrategy } from "../schemas/boundaries";
import { MARKER_FINDING_KINDS } from "../markers/findings";

/** Every kind of finding, as the wire's enum and the metric's `kind` label name them. */
export const INTEGRITY_KINDS = [
  "hash_mismatch",
  "missing_pass",
  "repeated_pass",
  "continued_after_halt",
  "restore_not_honoured",
  // From the chain's canaries (lib/canaries/survival.ts), not its hashes: judged by the
  // summariser (db/queries/canaries.ts) and counted in integrity_count (canary_finding_count).
  "canary_lost",
  // From the passes' CCR markers (lib/markers/findings.ts, table marker_findings), found at
  // ingest, on retrieval and when an original goes: shown with the chain, counted apart
  // (marker_finding_count), not in integrity_count.
  ...MARKER_FINDING_KINDS,
] as const;
export type IntegrityKind = (typeof INTEGRITY_KINDS)[number];

/** One finding, as the wire carries it (lib/schemas/chains.ts's IntegrityFinding is this shape). */
export interface IntegrityFinding {
  kind: IntegrityKind;
  pass_id: string;
  pass_number: number;
  detail: string;
  /** The marker's hash (the original's, for retrieve_recompressed): marker findings only. */
  hash?: string;
}

export interface ChainLink {
  pass_id: string;
  pass_number: number;
  input_content_hash: string | null;
  current_content_hash: string;
}

/** What the chain's boundaries and directives say beyond its passes (see `integrityContext`). */
export interface IntegrityContext {
  /** The halt point: passes numbered above it continued after a halt. Null: never halted. */
  halt_at: number | null;
  /** Why the chain halted at `halt_at`, for the finding's words. */
  halt_reason?: string;
  /** Restore boundaries by their pass number: the pass numbered one above must start from `expected_hash`. */
  restores: ReadonlyMap<number, { restore_pass_id: string; restore_pass_number: number; expected_hash: string }>;
}

export const NO_CONTEXT: IntegrityContext = { halt_at: null, restores: new Map() };

interface ContextPass extends ChainLink {
  directive: string;
}

interface ContextBoundary {
  pass_number: number;
  strategy: BoundaryStrategy;
  restore_pass_id?: string | null;
}

/**
 * The chain-level facts the two directive kinds need. The halt point is the lowest pass
 * number among the chain's `halt` boundaries and its passes whose directive is a HALT that
 * no `restore` or `accept_loss` boundary at the same pass number answers. A restore is
 * judged only when its `restore_pass_id` names a received pass of the chain.
 * `haltPasses` may be just the lowest such pass of each number (the summary keeps the halt point).
 */
export function integrityContext(
  haltPasses: readonly Pick<ContextPass, "pass_number" | "directive">[],
  boundaries: readonly ContextBoundary[],
  restoredPasses: readonly Pick<ChainLink, "pass_id" | "pass_number" | "current_content_hash">[],
): IntegrityContext {
  const answered = new Set(boundaries.filter((b) => b.strategy !== "halt").map((b) => b.pass_number));
  let haltAt: number | null = null;
  let haltReason: string | undefined;
  for (const b of boundaries) {
    if (b.strategy === "halt" && (haltAt === null || b.pass_number < haltAt)) {
      haltAt = b.pass_number;
      haltReason = `a halt boundary at pass ${b.pass_number}`;
    }
  }
  for (const p of haltPasses) {
    if (!isHaltDirective(p.directive) || answered.has(p.pass_number)) continue;
    if (haltAt === null || p.pass_number < haltAt) {
      haltAt = p.pass_number;
      haltReason = `the HALT directive of pass ${p.pass_number}`;
    }
  }
  const byId = new Map(restoredPasses.map((p) => [p.pass_id, p]));
  const restores = new Map<number, { restore_pass_id: string; restore_pass_number: number; expected_hash: string }>();
  for (const b of boundaries) {
    const k = b.strategy === "restore" && b.restore_pass_id ? byId.get(b.restore_pass_id) : undefined;
    if (k) {
      restores.set(b.pass_number, {
        restore_pass_id: k.pass_id,
        restore_pass_number: k.pass_number,
        expected_hash: k.current_content_hash,
      });
    }
  }
  return { halt_at: haltAt, halt_reason: haltReason, restores };
}

function isHaltDirective(directive: string): boolean {
  return directive.startsWith("HALT");
}

/**
 * `links` in chain order (pass number, then arrival). A chain may start at pass 0 or 1;
 * a later start means earlier passes were never received. A hash is only compared with
 * the pass immediately before it (across a gap the missing pass explains the difference),
 * except right after a restore boundary, where it is compared with the restored pass.
 * `links` may be a stretch of the chain: the first link is then judged as a chain start.
 */
export function findIntegrityIssues(
  links: readonly ChainLink[],
  context: IntegrityContext = NO_CONTEXT,
): IntegrityFinding[] {
  const findings: IntegrityFinding[] = [];
  links.forEach((link, i) => {
    const prev = i > 0 ? links[i - 1] : undefined;
    const at = { pass_id: link.pass_id, pass_number: link.pass_number };
    if (!prev) {
      if (link.pass_number > 1) {
        findings.push({
          kind: "missing_pass",
          ...at,
          detail: missingDetail(1, link.pass_number - 1, link.pass_number),
        });
      }
    } else if (link.pass_number === prev.pass_number) {
      findings.push({
        kind: "repeated_pass",
        ...at,
        detail: `Pass number ${link.pass_number} was already received as ${prev.pass_id}.`,
      });
    } else if (link.pass_number > prev.pass_number + 1) {
      findings.push({
        kind: "missing_pass",
        ...at,
        detail: missingDetail(prev.pass_number + 1, link.pass_number - 1, link.pass_number),
      });
    } else if (link.input_content_hash !== null) {
      const restore = context.restores.get(prev.pass_number);
      if (restore) {
        if (link.input_content_hash !== restore.expected_hash) {
          const took =
            link.input_content_hash === prev.current_content_hash
              ? `pass ${prev.pass_number}'s output (${prev.pass_id})`
              : short(link.input_content_hash);
          findings.push({
            kind: "restore_not_honoured",
            ...at,
            detail: `A restore boundary at pass ${prev.pass_number} restored pass ${restore.restore_pass_number} (${restore.restore_pass_id}), but this pass compressed ${took} instead of its output ${short(restore.expected_hash)}.`,
          });
        }
      } else if (link.input_content_hash !== prev.current_content_hash) {
        findings.push({
          kind: "hash_mismatch",
          ...at,
          detail: `Input hash ${short(link.input_content_hash)} does not match the output hash ${short(prev.current_content_hash)} of pass ${prev.pass_number} (${prev.pass_id}).`,
        });
      }
    }
    // Once per halt: on the first pass numbered above the halt point (like a gap, one finding).
    if (
      context.halt_at !== null &&
      link.pass_number > context.halt_at &&
      !(prev && prev.pass_number > context.halt_at)
    ) {
      findings.push({
        kind: "continued_after_halt",
        ...at,
        detail: `Received after the chain halted at pass ${context.halt_at}${context.halt_reason ? ` (${context.halt_reason})` : ""}; any later passes continued too.`,
      });
    }
  });
  return findings;
}

function missingDetail(from: number, to: number, before: number): string {
  const which = from === to ? `Pass ${from} was` : `Passes ${from}-${to} were`;
  return `${which} never received (before pass ${before}).`;
}

function short(hash: string): string {
  return hash.length > 16 ? `${hash.slice(0, 12)}…` : JSON.stringify(hash);
}
