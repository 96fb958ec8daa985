// The overview's roll-ups, kept exact by the writers of chain summaries (the summariser, the
// boundary ingest) in their transaction.
//
// A chain contributes to `chain_rollups` by what its summary row says (db/schema/rollups.ts);
// a write first reads the snapshots of the chains it is about to change, then, after the
// summaries are written, adds the difference between their new contribution (from the
// snapshots the write returns) and the old one, computed here rather than read twice.
// Passes add to `pass_rollups` once, when inserted, counted by the insert itself. The daily
// tables get the same changes summed per day. Upserts run last, one table after another and in key order,
// so concurrent writers queue on a hot hour only for the moment of their commit and cannot
// deadlock. Retention deletes chains without going through here: history keeps its counts.
import "server-only";
import { type SQL, sql } from "drizzle-orm";
import { col, queryRows, type RowOf } from "../sql";
import type { Executor } from "../types";
import { chainStatusCondition } from "../queries/chains";
import { chains } from "../schema";
import { OVERVIEW_FIGURE_STATUS } from "@/lib/chains/overview";
import type { ChainStatusFilter } from "@/lib/schemas/chains";
import { VERDICTS } from "@/lib/guard/guard";

// date_bin against a fixed UTC origin, never date_trunc: date_trunc follows the session's
// time zone, and half-hour zones would cut different hours.
const hourOf = (column: string) => `date_bin('1 hour', ${column}, timestamptz '2000-01-01 00:00:00+00')`;
const HOUR_OF = (column: string) => sql.raw(hourOf(column));
const DAY_OF = (column: string) => sql.raw(`date_bin('1 day', ${column}, timestamptz '2000-01-01 00:00:00+00')`);

/**
 * The chains-list statuses the overview counts chains by (lib/chains/overview.ts); each has a
 * column `active_<status>`: of the chains whose last activity falls in the hour, those with it.
 */
export const ROLLED_STATUSES = Object.values(OVERVIEW_FIGURE_STATUS).filter(
  (s): s is Exclude<typeof s, null> => s !== null,
);
export const activeStatusColumn = (status: ChainStatusFilter) => `active_${status}`;

/** The counts of `chain_rollups` and `chain_rollups_daily`, beside their time bucket and class. */
const CHAIN_COUNTS = [
  "active_chains",
  "integrity_findings",
  "started_chains",
  "started_collapsed",
  "collapsed_chains",
  ...ROLLED_STATUSES.map(activeStatusColumn),
];
const columns = (f: (c: string) => string, separator = ", ") => sql.raw(CHAIN_COUNTS.map(f).join(separator));

/**
 * Each chain's contribution per hour (see db/schema/rollups.ts), over the chains `where` keeps.
 * A status counts by the chains list's own condition (db/queries/chains.ts), so the overview's
 * figures and the lists they open cannot disagree.
 */
const chainContributions = (where: SQL) => {
  const statuses = ROLLED_STATUSES.map((s) => sql`(${chainStatusCondition(s)})::int`);
  const collapsed = sql`(${chainStatusCondition("collapsed")})::int`;
  const none = sql.raw(ROLLED_STATUSES.map(() => "0").join(", "));
  return sql`
  select d.hour, chains.content_class, ${columns((c) => `sum(d.${c})::bigint as ${c}`)}
  from chains
  cross join lateral (values
    (${HOUR_OF("chains.last_activity_at")}, 1, chains.integrity_count, 0, 0, 0, ${sql.join(statuses, sql`, `)}),
    (${HOUR_OF("chains.first_seen_at")}, 0, 0, 1, ${collapsed}, 0, ${none}),
    (${HOUR_OF("chains.collapse_at")}, 0, 0, 0, 0, ${collapsed}, ${none})
  ) as d(hour, ${columns((c) => c)})
  where ${where} and d.hour is not null
  group by d.hour, chains.content_class`;
};

/**
 * One chain's summary row as far as the roll-ups and the outbox care: its time buckets
 * (epoch milliseconds, cut by the database with the same expressions as the recompute) and
 * the overview statuses it has. Read before a write and returned by the write itself, so
 * neither side is read twice.
 */
export const CHAIN_SNAPSHOT_ROW = {
  chain_id: col.text,
  content_class: col.text,
  collapse_pass_id: col.text.nullable(),
  collapse_pass_number: col.int.nullable(),
  collapse_verdict: col.oneOf(VERDICTS).nullable(),
  integrity_count: col.int,
  boundary_count: col.int,
  last_pass_id: col.text.nullable(),
  last_pass_number: col.int.nullable(),
  halt_pass_number: col.int.nullable(),
  active_hour: col.number,
  first_hour: col.number,
  collapse_hour: col.number.nullable(),
  /** 1 or 0 for each of ROLLED_STATUSES, in order. */
  statuses: col.intArray,
};
export type ChainSnapshot = RowOf<typeof CHAIN_SNAPSHOT_ROW>;

/** Whether a snapshot's chain has one of the overview's statuses (ROLLED_STATUSES). */
export function snapshotHas(c: ChainSnapshot, status: (typeof ROLLED_STATUSES)[number]): boolean {
  return c.statuses[ROLLED_STATUSES.indexOf(status)] === 1;
}

// A bucket as epoch milliseconds: a plain number in either driver's answer and in JSON.
const hourMs = (column: string) => `(extract(epoch from ${hourOf(column)}) * 1000)::float8`;

/**
 * The select list of a ChainSnapshot over the table `chains` (unaliased): usable in a select,
 * and in the `returning` of an insert into or an update of `chains`.
 */
export const CHAIN_SNAPSHOT = sql.join(
  [
    sql`${chains.chainId} as chain_id`,
    sql`${chains.contentClass} as content_class`,
    sql`${chains.collapsePassId} as collapse_pass_id`,
    sql`${chains.collapsePassNumber} as collapse_pass_number`,
    sql`${chains.collapseVerdict} as collapse_verdict`,
    sql`${chains.integrityCount} as integrity_count`,
    sql`${chains.boundaryCount} as boundary_count`,
    sql`${chains.lastPassId} as last_pass_id`,
    sql`${chains.lastPassNumber} as last_pass_number`,
    sql`${chains.haltPassNumber} as halt_pass_number`,
    sql.raw(`${hourMs(`"chains"."last_activity_at"`)} as active_hour`),
    sql.raw(`${hourMs(`"chains"."first_seen_at"`)} as first_hour`),
    sql.raw(`${hourMs(`"chains"."collapse_at"`)} as collapse_hour`),
    sql`array[${sql.join(
      ROLLED_STATUSES.map((s) => sql`(${chainStatusCondition(s)})::int`),
      sql`, `,
    )}] as statuses`,
  ],
  sql`, `,
);

/** The snapshots of the given chains that exist, by chain id. */
export async function readChainSnapshots(
  tx: Executor,
  chainIds: readonly string[],
): Promise<Map<string, ChainSnapshot>> {
  if (chainIds.length === 0) return new Map();
  const rows = await queryRows(
    tx,
    sql`select ${CHAIN_SNAPSHOT} from chains
        where chain_id in (select json_array_elements_text(${JSON.stringify([...new Set(chainIds)])}::json))`,
    CHAIN_SNAPSHOT_ROW,
  );
  return new Map(rows.map((r) => [r.chain_id, r]));
}

/** Passes inserted, counted per UTC hour of `created_at` × content class × effective verdict (the one the chain follows). */
export const PASS_GROUP_ROW = {
  /** Epoch milliseconds of the hour. */
  hour: col.number,
  content_class: col.text,
  verdict: col.text,
  passes: col.int,
  client_mismatches: col.int,
};
export type PassGroup = RowOf<typeof PASS_GROUP_ROW>;

/** The select list that counts passes (aliased `alias`) into PassGroups; group by its first three. */
export const passGroupColumns = (alias: string) =>
  sql.raw(`${hourMs(`${alias}.created_at`)} as hour, ${alias}.content_class, ${alias}.effective_verdict as verdict, count(*)::int as passes,
    (count(*) filter (where ${alias}.client_mismatch))::int as client_mismatches`);

export interface RollupTracker {
  /** Passes that were inserted (not retries), already counted per hour, class and verdict. */
  addPassGroups(groups: Iterable<PassGroup>): void;
  /**
   * Writes the roll-ups' change; call once, after the chain summaries are written, with the
   * snapshots of every chain the write changed (a chain left out counts as unchanged).
   */
  commit(after: ReadonlyMap<string, ChainSnapshot>): Promise<void>;
}

type Counts = number[];

/** What one snapshot adds to each (hour, class) of `chain_rollups`, in CHAIN_COUNTS order. */
function addContribution(
  into: Map<string, { hour: number; content_class: string; counts: Counts }>,
  c: ChainSnapshot,
  sign: 1 | -1,
): void {
  const add = (hour: number | null, values: Counts) => {
    if (hour === null) return;
    const key = `${hour}\u0000${c.content_class}`;
    let row = into.get(key);
    if (!row) {
      row = { hour, content_class: c.content_class, counts: CHAIN_COUNTS.map(() => 0) };
      into.set(key, row);
    }
    for (let i = 0; i < values.length; i++) row.counts[i] = (row.counts[i] ?? 0) + sign * (values[i] ?? 0);
  };
  const collapsed = snapshotHas(c, "collapsed") ? 1 : 0;
  add(c.active_hour, [1, c.integrity_count, 0, 0, 0, ...c.statuses]);
  add(c.first_hour, [0, 0, 1, collapsed]);
  add(c.collapse_hour, [0, 0, 0, 0, collapsed]);
}

/**
 * Notes what the given chains contribute now (their snapshots, read after taking the chains'
 * locks and before changing them); the tracker writes the difference when the write is done.
 */
export function trackRollups(tx: Executor, before: ReadonlyMap<string, ChainSnapshot>): RollupTracker {
  const passDeltas = new Map<string, PassGroup>();
  let committed = false;

  return {
    addPassGroups(groups) {
      for (const g of groups) {
        const key = `${g.hour}\u0000${g.content_class}\u0000${g.verdict}`;
        const d = passDeltas.get(key);
        if (d) {
          d.passes += g.passes;
          d.client_mismatches += g.client_mismatches;
        } else passDeltas.set(key, { ...g });
      }
    },
    async commit(after) {
      if (committed) throw new Error("roll-ups already committed for this write");
      committed = true;
      const iso = (ms: number) => new Date(ms).toISOString();
      if (passDeltas.size > 0) {
        const json = JSON.stringify([...passDeltas.values()].map((d) => ({ ...d, hour: iso(d.hour) })));
        const deltas = sql`json_to_recordset(${json}::json)
          as d(hour timestamptz, content_class text, verdict text, passes bigint, client_mismatches bigint)`;
        await tx.execute(sql`
          insert into pass_rollups (hour, content_class, verdict, passes, client_mismatches)
          select hour, content_class, verdict, passes, client_mismatches from ${deltas}
          order by hour, content_class, verdict
          on conflict (hour, content_class, verdict) do update set
            passes = pass_rollups.passes + excluded.passes,
            client_mismatches = pass_rollups.client_mismatches + excluded.client_mismatches`);
        await tx.execute(sql`
          insert into pass_rollups_daily (day, content_class, verdict, passes, client_mismatches)
          select ${DAY_OF("hour")}, content_class, verdict, sum(passes), sum(client_mismatches) from ${deltas}
          group by 1, 2, 3
          order by 1, 2, 3
          on conflict (day, content_class, verdict) do update set
            passes = pass_rollups_daily.passes + excluded.passes,
            client_mismatches = pass_rollups_daily.client_mismatches + excluded.client_mismatches`);
      }
      const delta = new Map<string, { hour: number; content_class: string; counts: Counts }>();
      for (const [chainId, now] of after) {
        const was = before.get(chainId);
        if (was) addContribution(delta, was, -1);
        addContribution(delta, now, 1);
      }
      const changed = [...delta.values()].filter((d) => d.counts.some((n) => n !== 0));
      if (changed.length === 0) return;
      const json = JSON.stringify(
        changed.map((d) => ({
          hour: iso(d.hour),
          content_class: d.content_class,
          ...Object.fromEntries(CHAIN_COUNTS.map((c, i) => [c, d.counts[i]])),
        })),
      );
      const deltas = sql`json_to_recordset(${json}::json)
        as d(hour timestamptz, content_class text, ${columns((c) => `${c} bigint`)})`;
      // One table after the other, each in key order: concurrent writers cannot deadlock.
      await tx.execute(sql`
        insert into chain_rollups (hour, content_class, ${columns((c) => c)})
        select hour, content_class, ${columns((c) => c)} from ${deltas}
        order by hour, content_class
        on conflict (hour, content_class) do update set
          ${columns((c) => `${c} = chain_rollups.${c} + excluded.${c}`)}`);
      await tx.execute(sql`
        insert into chain_rollups_daily (day, content_class, ${columns((c) => c)})
        select * from (
          select ${DAY_OF("hour")} as day, content_class, ${columns((c) => `sum(${c}) as ${c}`)}
          from ${deltas} group by 1, 2
        ) as daily
        where ${sql.raw(`(${CHAIN_COUNTS.map((c) => `${c} <> 0`).join(" or ")})`)}
        order by day, content_class
        on conflict (day, content_class) do update set
          ${columns((c) => `${c} = chain_rollups_daily.${c} + excluded.${c}`)}`);
    },
  };
}

/**
 * The roll-ups as they would be if computed from scratch over the stored chains and passes,
 * in the tables' shape: for tests, and for a migration that backfills them.
 */
export const RECOMPUTE_CHAIN_ROLLUPS = chainContributions(sql`true`);

export const RECOMPUTE_PASS_ROLLUPS = sql`
  select ${HOUR_OF("created_at")} as hour, content_class, effective_verdict as verdict,
    count(*)::bigint as passes, (count(*) filter (where client_mismatch))::bigint as client_mismatches
  from passes
  group by 1, 2, 3`;

/** The daily roll-ups recomputed: the hourly recompute summed per UTC day. */
export const RECOMPUTE_CHAIN_ROLLUPS_DAILY = sql`
  select ${DAY_OF("hour")} as day, content_class, ${columns((c) => `sum(${c})::bigint as ${c}`)}
  from (${RECOMPUTE_CHAIN_ROLLUPS}) as h group by 1, 2`;

export const RECOMPUTE_PASS_ROLLUPS_DAILY = sql`
  select ${DAY_OF("hour")} as day, content_class, verdict, sum(passes)::bigint as passes,
    sum(client_mismatches)::bigint as client_mismatches
  from (${RECOMPUTE_PASS_ROLLUPS}) as h group by 1, 2, 3`;
