// Integrity of a compression chain, from its receipts alone. The SQL in
// db/queries/chain-summary.ts counts the same findings; keep the two in step.

export type IntegrityKind = "hash_mismatch" | "missing_pass" | "repeated_pass";

export interface IntegrityFinding {
  kind: IntegrityKind;
  pass_id: string;
  pass_number: number;
  detail: string;
}

export interface ChainLink {
  pass_id: string;
  pass_number: number;
  input_content_hash: string | null;
  current_content_hash: string;
}

/**
 * `links` in chain order (pass number, then arrival). A chain may start at pass 0 or 1;
 * a later start means earlier passes were never received. A hash is only compared with
 * the pass immediately before it: across a gap the missing pass explains the difference.
 */
export function findIntegrityIssues(links: readonly ChainLink[]): IntegrityFinding[] {
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
      return;
    }
    if (link.pass_number === prev.pass_number) {
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
    } else if (link.input_content_hash !== null && link.input_content_hash !== prev.current_content_hash) {
      findings.push({
        kind: "hash_mismatch",
        ...at,
        detail: `Input hash ${short(link.input_content_hash)} does not match the output hash ${short(prev.current_content_hash)} of pass ${prev.pass_number} (${prev.pass_id}).`,
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
