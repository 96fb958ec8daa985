import "server-only";
import { sql, type SQL } from "drizzle-orm";
import { col, queryRows, type RowOf } from "../sql";
import { getReadDb } from "../index";
import { evaluatePass, type CompressionPolicy, type Verdict } from "@/lib/guard/guard";
import type { ReplayedChain } from "@/lib/chains/what-if";

/** A chain and where it first collapses under each floor (`cur_*`, `cand_*`): null where it never does. */
const REPLAY_ROW = {
  chain_id: col.text,
  pass_count: col.int,
  cur_pass_id: col.text.nullable(),
  cur_pass_number: col.int.nullable(),
  cur_size: col.int.nullable(),
  cur_density: col.number.nullable(),
  cur_parseable: col.bool.nullable(),
  cur_schema_valid: col.bool.nullable(),
  cur_hash: col.text.nullable(),
  cand_pass_id: col.text.nullable(),
  cand_pass_number: col.int.nullable(),
  cand_size: col.int.nullable(),
  cand_density: col.number.nullable(),
  cand_parseable: col.bool.nullable(),
  cand_schema_valid: col.bool.nullable(),
  cand_hash: col.text.nullable(),
};
type ReplayRow = RowOf<typeof REPLAY_ROW>;

/**
 * The first pass of a chain at which the guard stops under a floor: past the first pass,
 * every gate of lib/guard.ts that does not say SAFE says collapse, so this is the guard's
 * decision without its wording (which evaluatePass adds afterwards for the pass found).
 */
function firstCollapse(contentClass: string, floor: CompressionPolicy, prefix: string, measured: boolean): SQL {
  // A class that follows measured density is replayed on it where the pass was measured.
  const density = measured
    ? sql`coalesce(p.measured_density, p.semantic_density_score)`
    : sql`p.semantic_density_score`;
  return sql`
    left join lateral (
      select p.pass_id as ${sql.raw(`${prefix}_pass_id`)}, p.pass_number as ${sql.raw(`${prefix}_pass_number`)},
        p.current_size_bytes as ${sql.raw(`${prefix}_size`)}, ${density} as ${sql.raw(`${prefix}_density`)},
        p.is_parseable as ${sql.raw(`${prefix}_parseable`)}, p.schema_valid as ${sql.raw(`${prefix}_schema_valid`)},
        p.current_content_hash as ${sql.raw(`${prefix}_hash`)}
      from passes p
      where p.chain_id = c.chain_id and p.content_class = ${contentClass} and p.pass_number > 1
        and (p.pass_number > ${floor.max_pass_number} or not p.is_parseable or not p.schema_valid
          or p.current_size_bytes < ${floor.min_size_bytes} or ${density} < ${floor.min_semantic_density})
      order by p.pass_number, p.id
      limit 1
    ) as ${sql.raw(prefix)} on true`;
}

/**
 * Replays every recorded chain of a content class through the guard under the floor in
 * force and under a candidate floor, and returns where each chain would collapse under
 * each (on measured density wherever a pass has one, for a class with density_source
 * measured). Reads only; nothing is written. Each chain costs two index scans of its passes that
 * stop at the first collapsing pass. Passes of other classes in a chain are not replayed.
 */
export async function replayClass(
  contentClass: string,
  current: CompressionPolicy & { density_source?: string },
  candidate: CompressionPolicy,
): Promise<ReplayedChain[]> {
  const db = await getReadDb();
  const measured = current.density_source === "measured";
  const rows = await queryRows(
    db,
    sql`
      select c.chain_id, c.pass_count, cur.*, cand.*
      from chains c
      ${firstCollapse(contentClass, current, "cur", measured)}
      ${firstCollapse(contentClass, candidate, "cand", measured)}
      where c.content_class = ${contentClass}`,
    REPLAY_ROW,
  );
  const judge = (row: ReplayRow, prefix: "cur" | "cand", floor: CompressionPolicy) => {
    const passId = row[`${prefix}_pass_id`];
    if (passId === null) return null;
    const pass = {
      pass_id: passId,
      pass_number: row[`${prefix}_pass_number`] ?? 0,
      current_content_hash: row[`${prefix}_hash`] ?? "",
      current_size_bytes: row[`${prefix}_size`] ?? 0,
      is_parseable: row[`${prefix}_parseable`] ?? false,
      schema_valid: row[`${prefix}_schema_valid`] ?? false,
      semantic_density_score: row[`${prefix}_density`] ?? 0,
    };
    const manifest = evaluatePass(pass, floor);
    return {
      pass_id: passId,
      pass_number: pass.pass_number,
      verdict: manifest.verdict as Verdict,
      directive: manifest.directive,
    };
  };
  return rows.map((row) => {
    const cur = judge(row, "cur", current);
    return {
      chain_id: row.chain_id,
      pass_count: row.pass_count,
      current: cur && { pass_id: cur.pass_id, pass_number: cur.pass_number, verdict: cur.verdict },
      candidate: judge(row, "cand", candidate),
    };
  });
}
