import "server-only";
import { type SQL, sql } from "drizzle-orm";
import { getReadDb } from "../index";
import { col, type Column, onlyRow, queryRows } from "../sql";
import type { CollapseRateRow } from "@/lib/chains/overview";
import { OVERVIEW_FIGURE_STATUS, type OverviewFigures, type RecentCollapse } from "@/lib/chains/overview";
import type { ChainStatusFilter } from "@/lib/schemas/chains";
import { activeStatusColumn } from "../ingest/rollups";
import { chainStatusCondition } from "./chains";
import { VERDICTS } from "@/lib/guard/guard";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const ceilTo = (t: Date, ms: number) => new Date(Math.ceil(t.getTime() / ms) * ms);

/** Every figure is a count (a sum of counts). */
const FIGURES_ROW = Object.fromEntries(
  [...Object.keys(OVERVIEW_FIGURE_STATUS), "passes"].map((key) => [key, col.int]),
) as Record<keyof OverviewFigures, Column<number>>;

/**
 * The headline figures since a moment (or over all time when `since` is null). Every chain
 * figure counts what the chains list shows for the same status and range: chains whose last
 * activity is in the range, with that status (the roll-ups count each chain under the list's
 * own status conditions, db/ingest/rollups.ts); `passes` counts receipts dated in it (their
 * `created_at`, the receive time for a receipt that gave none), while a chain's activity is
 * the later of the two, so backdated receipts can make chains outnumber passes.
 *
 * From the roll-ups (db/schema/rollups.ts): whole days from the daily ones, the whole hours
 * before the first whole day from the hourly ones, and the part of an hour before the first
 * whole hour from the tables, through their time indexes. The cost follows the length of the
 * range in days, not the number of chains or passes.
 */
export async function getOverviewFigures(since: Date | null): Promise<OverviewFigures> {
  const db = await getReadDb();
  const edge = since ? ceilTo(since, HOUR_MS) : null;
  const firstDay = edge ? ceilTo(edge, DAY_MS) : null;
  const from = since?.toISOString() ?? null;
  const daysFrom = firstDay ? sql`day >= ${firstDay.toISOString()}::timestamptz` : sql`true`;
  const hoursFrom =
    edge && firstDay
      ? sql`hour >= ${edge.toISOString()}::timestamptz and hour < ${firstDay.toISOString()}::timestamptz`
      : sql`false`;
  // The stretch [since, first whole hour): empty when there is no `since`.
  const inEdge = (column: string) =>
    since && edge
      ? sql`${sql.raw(column)} >= ${from}::timestamptz and ${sql.raw(column)} < ${edge.toISOString()}::timestamptz`
      : sql`false`;
  const figures = Object.entries(OVERVIEW_FIGURE_STATUS) as [keyof OverviewFigures, ChainStatusFilter | null][];
  // Per figure: the roll-up column that counts it, and the condition over the edge's chains.
  const parts = figures.map(([key, status]) => ({
    key: sql.identifier(key),
    column: sql.identifier(status === null ? "active_chains" : activeStatusColumn(status)),
    condition: status === null ? sql`true` : chainStatusCondition(status),
  }));
  const rows = await queryRows(
    db,
    sql`
      with r as (
        select ${sql.join(
          parts.map((p) => sql`coalesce(sum(${p.column}), 0) as ${p.key}`),
          sql`, `,
        )}
        from (
          select ${sql.join(
            parts.map((p) => p.column),
            sql`, `,
          )} from chain_rollups_daily where ${daysFrom}
          union all
          select ${sql.join(
            parts.map((p) => p.column),
            sql`, `,
          )} from chain_rollups where ${hoursFrom}
        ) as u
      ),
      e as (
        select ${sql.join(
          parts.map((p) => sql`count(*) filter (where ${p.condition}) as ${p.key}`),
          sql`, `,
        )}
        from chains where ${inEdge("last_activity_at")}
      ),
      p as (
        select coalesce(sum(passes), 0) as passes from (
          select passes from pass_rollups_daily where ${daysFrom}
          union all
          select passes from pass_rollups where ${hoursFrom}
        ) as u
      )
      select ${sql.join(
        parts.map((x) => sql`r.${x.key} + e.${x.key} as ${x.key}`),
        sql`, `,
      )},
        p.passes + (select count(*) from passes where ${inEdge("created_at")}) as passes
      from r, e, p`,
    FIGURES_ROW,
  );
  return onlyRow(rows);
}

/**
 * When the first chain started: where "all time" begins. The oldest stored chain, unless
 * retention deleted older ones, whose hour the roll-ups still hold.
 */
export async function getFirstActivity(): Promise<Date | null> {
  const db = await getReadDb();
  const rows = await queryRows(
    db,
    sql`
      with c as (select min(first_seen_at) as t from chains),
        r as (select min(hour) as h from chain_rollups where started_chains > 0)
      select case
        when r.h is not null and (c.t is null or r.h < date_bin('1 hour', c.t, timestamptz '2000-01-01 00:00:00+00')) then r.h
        else c.t end as first
      from c, r`,
    { first: col.date.nullable() },
  );
  return onlyRow(rows).first;
}

/**
 * Chains that started in each time bucket, per content class, and how many of them have
 * collapsed (so far). Buckets are `stride` wide (whole hours), aligned to `origin`.
 */
export async function listCollapseRates(origin: Date, strideSeconds: number): Promise<CollapseRateRow[]> {
  const db = await getReadDb();
  // Buckets of whole days starting on a day read the daily roll-up.
  const daily = (strideSeconds * 1000) % DAY_MS === 0 && origin.getTime() % DAY_MS === 0;
  const table = daily ? sql`chain_rollups_daily` : sql`chain_rollups`;
  const bucket = daily ? sql`day` : sql`hour`;
  const rows = await queryRows(
    db,
    sql`
      select date_bin(make_interval(secs => ${strideSeconds}), ${bucket}, ${origin.toISOString()}::timestamptz) as bucket,
        content_class,
        sum(started_chains) as started,
        sum(started_collapsed) as collapsed
      from ${table}
      where ${bucket} >= ${origin.toISOString()}::timestamptz
      group by 1, 2
      having sum(started_chains) > 0
      order by 1, 2`,
    { bucket: col.date, content_class: col.text, started: col.int, collapsed: col.int },
  );
  return rows.map((r) => ({ ...r, bucket: r.bucket.toISOString() }));
}

/**
 * The latest collapse points, one per chain: failures first (chains that went past the floor,
 * newest collapse first), then floors reached that no boundary answered yet. Chains the guard
 * saved are left out: the overview counts them apart (`chains_guarded`).
 */
export async function listRecentCollapses(since: Date | null, limit = 10): Promise<RecentCollapse[]> {
  const db = await getReadDb();
  const collapsedIn = since ? sql`chains.collapse_at >= ${since.toISOString()}::timestamptz` : sql`true`;
  const collapsed = chainStatusCondition("collapsed");
  const guarded = chainStatusCondition("guarded");
  // Each group the newest first by its own read of chains_collapse_at_idx, and only then their
  // passes: a join in the ordered part let the planner join every collapse of the range.
  const newest = (condition: SQL, outcome: RecentCollapse["outcome"]) => sql`(
        select chain_id, content_class, collapse_pass_id, collapse_at, ${outcome}::text as outcome from chains
        where chains.collapse_at is not null and ${collapsedIn} and ${condition}
        order by chains.collapse_at desc, chains.chain_id desc
        limit ${limit})`;
  const rows = await queryRows(
    db,
    sql`
      select c.outcome, c.chain_id, c.content_class, p.pass_id, p.pass_number, p.effective_verdict as verdict,
        p.directive, p.created_at,
        case when p.effective_verdict <> p.verdict then p.measured_density end as measured_density,
        p.semantic_density_score as claimed_density
      from (
        select * from (
          ${newest(collapsed, "collapsed")}
          union all
          ${newest(sql`not ${collapsed} and not ${guarded}`, "unanswered")}
        ) as both_groups
        order by outcome = 'collapsed' desc, collapse_at desc, chain_id desc
        limit ${limit}
      ) as c
      join passes p on p.chain_id = c.chain_id and p.pass_id = c.collapse_pass_id
      order by c.outcome = 'collapsed' desc, c.collapse_at desc, c.chain_id desc`,
    {
      outcome: col.oneOf(["collapsed", "unanswered"] as const),
      chain_id: col.text,
      content_class: col.text,
      pass_id: col.text,
      pass_number: col.int,
      verdict: col.oneOf(VERDICTS),
      directive: col.text,
      created_at: col.date,
      measured_density: col.number.nullable(),
      claimed_density: col.number,
    },
  );
  return rows.map(({ measured_density, claimed_density, created_at, ...r }) => ({
    ...r,
    created_at: created_at.toISOString(),
    measured: measured_density === null ? null : { density: measured_density, claimed: claimed_density },
  }));
}
