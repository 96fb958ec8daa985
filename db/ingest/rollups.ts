// The overview's roll-ups, kept exact by the ingest use cases in the writer's transaction.
//
// A chain contributes to `chain_rollups` by what its summary row says (db/schema/rollups.ts);
// a write first notes the contribution of the chains it is about to change, then, after the
// summaries are written, adds the difference between their new contribution and the noted
// one. Passes add to `pass_rollups` once, when inserted. The daily tables get the same
// changes summed per day. Upserts run last, one table after another and in key order,
// so concurrent writers queue on a hot hour only for the moment of their commit and cannot
// deadlock. Retention deletes chains without going through here: history keeps its counts.
import "server-only";
import { type SQL, sql } from "drizzle-orm";
import { queryRows, type Executor } from "../index";
import { chainStatusCondition } from "../queries/chains";
import { OVERVIEW_FIGURE_STATUS } from "@/lib/chains/overview";
import type { ChainStatusFilter } from "@/lib/schemas/chains";

// date_bin against a fixed UTC origin, never date_trunc: date_trunc follows the session's
// time zone, and half-hour zones would cut different hours.
const HOUR_OF = (column: string) => sql.raw(`date_bin('1 hour', ${column}, timestamptz '2000-01-01 00:00:00+00')`);
const DAY_OF = (column: string) => sql.raw(`date_bin('1 day', ${column}, timestamptz '2000-01-01 00:00:00+00')`);

const HOUR_MS = 3_600_000;

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

type ChainContribution = { hour: string; content_class: string } & Record<string, number>;

/**
 * Each chain's contribution per hour (see db/schema/rollups.ts), over the chains `where` keeps.
 * A status counts by the chains list's own condition (db/queries/chains.ts), so the overview's
 * figures and the lists they open cannot disagree.
 */
const chainContributions = (where: SQL) => {
  const statuses = ROLLED_STATUSES.map((s) => sql`(${chainStatusCondition(s)})::int`);
  const none = sql.raw(ROLLED_STATUSES.map(() => "0").join(", "));
  return sql`
  select d.hour, chains.content_class, ${columns((c) => `sum(d.${c})::bigint as ${c}`)}
  from chains
  cross join lateral (values
    (${HOUR_OF("chains.last_activity_at")}, 1, chains.integrity_count, 0, 0, 0, ${sql.join(statuses, sql`, `)}),
    (${HOUR_OF("chains.first_seen_at")}, 0, 0, 1, (chains.collapse_pass_id is not null)::int, 0, ${none}),
    (${HOUR_OF("chains.collapse_at")}, 0, 0, 0, 0, 1, ${none})
  ) as d(hour, ${columns((c) => c)})
  where ${where} and d.hour is not null
  group by d.hour, chains.content_class`;
};

const contributionOf = (chainIdsJson: string) =>
  chainContributions(sql`chains.chain_id in (select json_array_elements_text(${chainIdsJson}::json))`);

/** A pass as far as the roll-ups care. */
export interface RolledPass {
  content_class: string;
  verdict: string;
  client_mismatch: boolean;
  created_at: string | Date;
}

export interface RollupTracker {
  /** Passes that were inserted (not retries). */
  addPasses(passes: Iterable<RolledPass>): void;
  /** Writes the roll-ups' change; call once, after the chain summaries are written. */
  commit(): Promise<void>;
}

/**
 * Notes what the given chains contribute now; call it after taking the chains' locks and
 * before changing them. The tracker writes the difference when the write is done.
 */
export async function trackRollups(tx: Executor, chainIds: readonly string[]): Promise<RollupTracker> {
  const ids = JSON.stringify([...new Set(chainIds)]);
  const before = (await queryRows<Record<string, unknown>>(tx, contributionOf(ids))).map((r) => ({
    ...Object.fromEntries(CHAIN_COUNTS.map((c) => [c, Number(r[c])])),
    hour: new Date(r.hour as string | Date).toISOString(),
    content_class: String(r.content_class),
  })) as ChainContribution[];
  const passDeltas = new Map<
    string,
    { hour: string; content_class: string; verdict: string; passes: number; client_mismatches: number }
  >();
  let committed = false;

  return {
    addPasses(passes) {
      for (const p of passes) {
        const t = typeof p.created_at === "string" ? Date.parse(p.created_at) : p.created_at.getTime();
        const hour = new Date(Math.floor(t / HOUR_MS) * HOUR_MS).toISOString();
        const key = `${hour}\u0000${p.content_class}\u0000${p.verdict}`;
        const d = passDeltas.get(key) ?? {
          hour,
          content_class: p.content_class,
          verdict: p.verdict,
          passes: 0,
          client_mismatches: 0,
        };
        d.passes += 1;
        if (p.client_mismatch) d.client_mismatches += 1;
        passDeltas.set(key, d);
      }
    },
    async commit() {
      if (committed) throw new Error("roll-ups already committed for this write");
      committed = true;
      if (passDeltas.size > 0) {
        const deltas = sql`json_to_recordset(${JSON.stringify([...passDeltas.values()])}::json)
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
      const delta = sql`
        with delta as (
          select hour, content_class, ${columns((c) => `sum(${c}) as ${c}`)}
          from (
            ${contributionOf(ids)}
            union all
            select hour, content_class, ${columns((c) => `-${c}`)}
            from json_to_recordset(${JSON.stringify(before)}::json) as b(
              hour timestamptz, content_class text, ${columns((c) => `${c} bigint`)})
          ) as x
          group by hour, content_class
        )`;
      const changed = sql`(${columns((c) => `${c} <> 0`, " or ")})`;
      // The change is computed twice, once per table: two statements keep the lock order fixed.
      await tx.execute(sql`
        ${delta}
        insert into chain_rollups (hour, content_class, ${columns((c) => c)})
        select * from delta
        where ${changed}
        order by hour, content_class
        on conflict (hour, content_class) do update set
          ${columns((c) => `${c} = chain_rollups.${c} + excluded.${c}`)}`);
      await tx.execute(sql`
        ${delta}
        insert into chain_rollups_daily (day, content_class, ${columns((c) => c)})
        select * from (
          select ${DAY_OF("hour")} as day, content_class, ${columns((c) => `sum(${c}) as ${c}`)}
          from delta group by 1, 2
        ) as daily
        where ${changed}
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
  select ${HOUR_OF("created_at")} as hour, content_class, verdict,
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
