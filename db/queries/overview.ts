import "server-only";
import { sql } from "drizzle-orm";
import { getReadDb, onlyRow, queryRows } from "../index";
import type { CollapseRateRow } from "@/lib/chains/overview";
import { OVERVIEW_FIGURE_STATUS, type OverviewFigures, type RecentCollapse } from "@/lib/chains/overview";
import { chainStatusCondition } from "./chains";

const DAY_MS = 86_400_000;

/**
 * The headline figures since a moment (or over all time when `since` is null). The chain
 * figures count what the chains list shows for the same filters (the same status conditions,
 * activity since the same moment), in one read of the chains active in the range; `passes`
 * counts receipts received in the range.
 *
 * NOT from the roll-ups (db/schema/rollups.ts) yet: these figures count chains by status
 * (what the list opens), which the roll-ups do not hold (they hold per-hour pass and finding
 * counts, and a chain active in several hours cannot be summed). So this read grows with the
 * chains active in the range; moving it to roll-ups needs per-status chain columns kept at
 * ingest, an open follow-up.
 */
export async function getOverviewFigures(since: Date | null): Promise<OverviewFigures> {
  const db = await getReadDb();
  const activeChains = since ? sql`last_activity_at >= ${since.toISOString()}::timestamptz` : sql`true`;
  const passesIn = since ? sql`p.created_at >= ${since.toISOString()}::timestamptz` : sql`true`;
  const figures = Object.entries(OVERVIEW_FIGURE_STATUS).map(([key, status]) =>
    status === null
      ? sql`count(*) as ${sql.identifier(key)}`
      : sql`count(*) filter (where ${chainStatusCondition(status)}) as ${sql.identifier(key)}`,
  );
  const rows = await queryRows<Record<keyof OverviewFigures, number | string>>(
    db,
    sql`
      select ${sql.join(figures, sql`, `)},
        (select count(*) from passes p where ${passesIn}) as passes
      from chains where ${activeChains}`,
  );
  const row = onlyRow(rows);
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)])) as unknown as OverviewFigures;
}

/**
 * When the first chain started: where "all time" begins. The oldest stored chain, unless
 * retention deleted older ones, whose hour the roll-ups still hold.
 */
export async function getFirstActivity(): Promise<Date | null> {
  const db = await getReadDb();
  const [row] = await queryRows<{ first: Date | string | null }>(
    db,
    sql`
      with c as (select min(first_seen_at) as t from chains),
        r as (select min(hour) as h from chain_rollups where started_chains > 0)
      select case
        when r.h is not null and (c.t is null or r.h < date_bin('1 hour', c.t, timestamptz '2000-01-01 00:00:00+00')) then r.h
        else c.t end as first
      from c, r`,
  );
  return row?.first ? new Date(row.first) : null;
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
  const rows = await queryRows<{
    bucket: Date | string;
    content_class: string;
    started: number | string;
    collapsed: number | string;
  }>(
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
  );
  return rows.map((r) => ({
    bucket: new Date(r.bucket).toISOString(),
    content_class: r.content_class,
    started: Number(r.started),
    collapsed: Number(r.collapsed),
  }));
}

/** The latest collapse points, newest first (chains by when their collapse pass was created). */
export async function listRecentCollapses(since: Date | null, limit = 10): Promise<RecentCollapse[]> {
  const db = await getReadDb();
  const collapsedIn = since ? sql`c.collapse_at >= ${since.toISOString()}::timestamptz` : sql`true`;
  const rows = await queryRows<
    Omit<RecentCollapse, "created_at" | "pass_number"> & { created_at: Date | string; pass_number: number | string }
  >(
    db,
    sql`
      select c.chain_id, c.content_class, p.pass_id, p.pass_number, p.verdict, p.directive, p.created_at
      from (
        -- The newest collapsed chains first, by their index, and only then their passes: a
        -- join in the ordered part let the planner join every collapse of the range.
        select chain_id, content_class, collapse_pass_id, collapse_at from chains c
        where c.collapse_at is not null and ${collapsedIn}
        order by c.collapse_at desc, c.chain_id desc
        limit ${limit}
      ) as c
      join passes p on p.chain_id = c.chain_id and p.pass_id = c.collapse_pass_id
      order by c.collapse_at desc, c.chain_id desc`,
  );
  return rows.map((r) => ({
    ...r,
    pass_number: Number(r.pass_number),
    created_at: new Date(r.created_at).toISOString(),
  }));
}
