// Re-measuring a class (docs/measurement.md, "Re-measuring a class"): every pass of the class
// whose chain has a kept source and whose content is a live cached original is measured again by
// the method of the day, and the answer is kept beside the one the pass got on ingest (table
// remeasurements), which does not change. What comes back compares the two, so that an operator
// can see what switching the class to measured density would do on their own data.
import "server-only";
import { sql } from "drizzle-orm";
import { type MeasureTask, type MeasureTaskResult, measureAllForIngest } from "@/lib/measure/pool";
import { METHOD } from "@/lib/measure/index";
import { measurableOriginal, readableOriginals } from "../ingest/measure-context";
import { col, queryRows } from "../sql";
import type { Executor } from "../types";
import { getPoliciesInForce } from "./policies";

/** Passes read and measured at a time: their contents and sources are held in memory together. */
const PAGE = 64;

export interface RemeasureProgress {
  /** Passes of the class measured so far, and how many can be (a kept source and a cached content). */
  done: number;
  total: number;
}

/** One pass's two answers. `before` is null where ingest did not measure it. */
export interface RemeasuredPass {
  chain_id: string;
  pass_id: string;
  pass_number: number;
  before: { score: number; method: string | null } | null;
  after: number;
}

export interface RemeasureReport {
  content_class: string;
  method: string;
  /** The class's floor and density source, as in force now. */
  floor: number;
  density_source: "client" | "measured";
  /** Passes of the class, and of those: measurable (source and content kept), measured, failed. */
  passes: number;
  measurable: number;
  measured: number;
  failed: number;
  /** Medians of the measured passes' answers before (where there was one) and now. */
  median_before: number | null;
  median_after: number | null;
  /** Passes at or above the floor before and under it now, and the other way round. */
  fell_under_floor: number;
  rose_above_floor: number;
  /** The largest moves, largest first (at most ten). */
  largest_moves: RemeasuredPass[];
}

const median = (xs: number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/**
 * Re-measures the passes of `contentClass` and keeps the answers beside theirs. `onProgress`
 * is told after each page. Throws only on database trouble; a content that cannot be measured
 * within its budget counts as failed.
 */
export async function remeasureClass(
  db: Executor,
  contentClass: string,
  onProgress: (progress: RemeasureProgress) => void = () => {},
): Promise<RemeasureReport> {
  const policy = (await getPoliciesInForce([contentClass], db)).get(contentClass);
  if (!policy) throw new Error(`no policy in force for content class ${JSON.stringify(contentClass)}`);
  const [counts] = await queryRows(
    db,
    sql`select count(*) as passes,
          count(*) filter (where s.chain_id is not null and o.hash is not null) as measurable
        from passes p
        left join chain_sources s on s.chain_id = p.chain_id
        left join originals o on o.hash = lower(p.current_content_hash) and ${measurableOriginal("o")}
        where p.content_class = ${contentClass}`,
    { passes: col.int, measurable: col.int },
  );
  const total = counts?.measurable ?? 0;
  const readable = readableOriginals(true);
  const results: RemeasuredPass[] = [];
  let failed = 0;
  let after = 0;
  for (;;) {
    // Keyset pages by the pass's row id: passes stored meanwhile after the last one are read too.
    const rows = await queryRows(
      db,
      sql`select p.id, p.chain_id, p.pass_id, p.pass_number, s.source, o.original as content,
            (p.server_checks->>'semantic_density_score')::float8 as before,
            p.server_checks->>'method' as method
          from passes p
          join chain_sources s on s.chain_id = p.chain_id
          join originals o on o.hash = lower(p.current_content_hash) and ${measurableOriginal("o")}
          where p.content_class = ${contentClass} and p.id > ${after}
          order by p.id
          limit ${PAGE}`,
      {
        id: col.int,
        chain_id: col.text,
        pass_id: col.text,
        pass_number: col.int,
        source: col.text,
        content: col.text,
        before: col.number.nullable(),
        method: col.text.nullable(),
      },
    );
    if (rows.length === 0) break;
    after = rows[rows.length - 1]?.id as number;
    const written: { pass_row_id: number; score: number; components: unknown; facts: unknown; lost: unknown }[] = [];
    // A page's measurements go to the pool in runs (a chain's source crosses once per run), then
    // once more, with the originals their markers name, those whose markers the store holds, as
    // ingest does.
    const tasks = rows.map((row) => ({
      content: row.content,
      source: row.source,
      format: policy.format,
      requiredFields: policy.required_fields,
      originals: new Map<string, string | null>(),
    }));
    const measured = await measureAllForIngest(tasks);
    const unknown = [...new Set(measured.flatMap((m) => (m === "failed" ? [] : m.unknownMarkers)))];
    const found = unknown.length > 0 ? await readable.byMarker(db, unknown) : new Map<string, string>();
    const again = measured.flatMap((m, k) =>
      m !== "failed" && m.unknownMarkers.some((key) => found.has(key)) ? [k] : [],
    );
    const remeasured = await measureAllForIngest(
      again.map((k) => {
        const keys = (measured[k] as MeasureTaskResult).unknownMarkers;
        return { ...(tasks[k] as MeasureTask), originals: new Map(keys.map((key) => [key, found.get(key) ?? null])) };
      }),
    );
    for (const [n, k] of again.entries()) measured[k] = remeasured[n] as MeasureTaskResult | "failed";
    for (const [k, result] of measured.entries()) {
      const row = rows[k] as (typeof rows)[number];
      if (result === "failed") {
        failed++;
        continue;
      }
      const m = result.measurement;
      written.push({
        pass_row_id: row.id,
        score: m.semantic_density_score,
        components: m.components,
        facts: m.facts,
        lost: m.lost_examples,
      });
      results.push({
        chain_id: row.chain_id,
        pass_id: row.pass_id,
        pass_number: row.pass_number,
        before: row.before === null ? null : { score: row.before, method: row.method },
        after: m.semantic_density_score,
      });
    }
    if (written.length > 0)
      await db.execute(sql`
        insert into remeasurements (pass_row_id, method, semantic_density_score, components, facts, lost_examples)
        select r.pass_row_id, ${METHOD}, r.score, r.components, r.facts, r.lost
        from json_to_recordset(${JSON.stringify(written)}::json)
          as r(pass_row_id bigint, score float8, components jsonb, facts jsonb, lost jsonb)
        -- A pass deleted meanwhile (retention) is skipped, not an error.
        where exists (select 1 from passes p where p.id = r.pass_row_id)
        on conflict (pass_row_id, method) do update set
          semantic_density_score = excluded.semantic_density_score, components = excluded.components,
          facts = excluded.facts, lost_examples = excluded.lost_examples, measured_at = now()`);
    onProgress({ done: results.length + failed, total: Math.max(total, results.length + failed) });
  }
  const floor = policy.min_semantic_density;
  const compared = results.filter((r) => r.before !== null);
  const move = (r: RemeasuredPass) => Math.abs(r.after - (r.before?.score ?? r.after));
  return {
    content_class: contentClass,
    method: METHOD,
    floor,
    density_source: policy.density_source,
    passes: counts?.passes ?? 0,
    measurable: Math.max(total, results.length + failed),
    measured: results.length,
    failed,
    median_before: median(compared.map((r) => r.before?.score as number)),
    median_after: median(results.map((r) => r.after)),
    fell_under_floor: compared.filter((r) => (r.before?.score as number) >= floor && r.after < floor).length,
    rose_above_floor: compared.filter((r) => (r.before?.score as number) < floor && r.after >= floor).length,
    largest_moves: [...compared].sort((a, b) => move(b) - move(a)).slice(0, 10),
  };
}
