import "server-only";
import { sql } from "drizzle-orm";
import { getDb, onlyRow, queryRows } from "../index";
import type { CollapseRateRow } from "@/lib/chains/overview";
import { OVERVIEW_FIGURE_STATUS, type OverviewFigures, type RecentCollapse } from "@/lib/chains/overview";
import { chainStatusCondition } from "./chains";

/**
 * The headline figures since a moment (or over all time when `since` is null). The chain
 * figures count what the chains list shows for the same filters (the same status conditions,
 * activity since the same moment), in one read of the chains active in the range; `passes`
 * counts receipts received in the range.
 */
export async function getOverviewFigures(since: Date | null): Promise<OverviewFigures> {
  const db = await getDb();
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

/** When the first chain started: where "all time" begins. */
export async function getFirstActivity(): Promise<Date | null> {
  const db = await getDb();
  const [row] = await queryRows<{ first: Date | string | null }>(
    db,
    sql`select min(first_seen_at) as first from chains`,
  );
  return row?.first ? new Date(row.first) : null;
}

/**
 * Chains that started in each time bucket, per content class, and how many of them have
 * collapsed (so far). Buckets are `stride` wide, aligned to `origin`.
 */
export async function listCollapseRates(origin: Date, strideSeconds: number): Promise<CollapseRateRow[]> {
  const db = await getDb();
  const rows = await queryRows<{
    bucket: Date | string;
    content_class: string;
    started: number | string;
    collapsed: number | string;
  }>(
    db,
    sql`
      select date_bin(make_interval(secs => ${strideSeconds}), first_seen_at, ${origin.toISOString()}::timestamptz) as bucket,
        content_class,
        count(*) as started,
        count(collapse_pass_id) as collapsed
      from chains
      where first_seen_at >= ${origin.toISOString()}::timestamptz
      group by 1, 2
      order by 1, 2`,
  );
  return rows.map((r) => ({
    bucket: new Date(r.bucket).toISOString(),
    content_class: r.content_class,
    started: Number(r.started),
    collapsed: Number(r.collapsed),
  }));
}

/** The latest collapse points: newest collapse-verdict passes that are their chain's collapse point. */
export async function listRecentCollapses(since: Date | null, limit = 10): Promise<RecentCollapse[]> {
  const db = await getDb();
  const passesIn = since ? sql`p.created_at >= ${since.toISOString()}::timestamptz` : sql`true`;
  const rows = await queryRows<
    Omit<RecentCollapse, "created_at" | "pass_number"> & { created_at: Date | string; pass_number: number | string }
  >(
    db,
    sql`
      select c.chain_id, c.content_class, p.pass_id, p.pass_number, p.verdict, p.directive, p.created_at
      from passes p
      join chains c on c.chain_id = p.chain_id and c.collapse_pass_id = p.pass_id
      where p.verdict in ('FLOOR_BREACH_DETECTED', 'COLLAPSE_IMMINENT')
        and ${passesIn}
      order by p.created_at desc, p.id desc
      limit ${limit}`,
  );
  return rows.map((r) => ({
    ...r,
    pass_number: Number(r.pass_number),
    created_at: new Date(r.created_at).toISOString(),
  }));
}
