// The chain summaries: the filtered, sorted list, the content classes, one chain whole (for
// the API) and the cheap version the live view polls. Longer than most modules on purpose: the
// statuses a row shows (statusesOf), the SQL that filters and orders by them (STATUS_FILTER,
// the attention order) and the keyset keys must agree, and they are read side by side here.
import "server-only";
import { and, asc, desc, eq, sql, type SQL } from "drizzle-orm";
import { getDb, getSettledDb, getReadDb } from "../index";
import { col, onlyRow, queryRows } from "../sql";
import type { Executor } from "../types";
import { keysetDirection, keysetPage } from "../keyset";
import { boundaries, chainOutcome, chains, passes } from "../schema";
import { toBoundaryWire } from "./boundaries";
import { toPassWire } from "./passes";
import { getPoliciesInForce } from "./policies";
import { findIntegrityIssues, integrityContext } from "@/lib/chains/integrity";
import { canaryFindings, type PlantedCanary } from "@/lib/canaries/survival";
import { COLLAPSE_VERDICTS, type Verdict } from "@/lib/guard/guard";
import { rangeStart, type RangeKey } from "@/lib/chains/overview";
import { getMarkerFindings } from "./marker-findings";
import type { MarkerFindingKind } from "@/lib/markers/findings";
import type {
  ChainListQuery,
  ChainSort,
  ChainStatus,
  ChainStatusFilter,
  ChainDetail,
  ChainSummaryWire,
} from "@/lib/schemas/chains";
import type { ChainKey, ChainVersion, ClassStats } from "@/lib/chains/types";

type ChainRecord = typeof chains.$inferSelect;

export async function getChain(chainId: string): Promise<ChainDetail | null> {
  const db = await getReadDb();
  const [summary, passRows, boundaryRows, markerFindings] = await Promise.all([
    db.select().from(chains).where(eq(chains.chainId, chainId)),
    db.select().from(passes).where(eq(passes.chainId, chainId)).orderBy(asc(passes.passNumber), asc(passes.id)),
    db.select().from(boundaries).where(eq(boundaries.chainId, chainId)).orderBy(asc(boundaries.passNumber)),
    getMarkerFindings(chainId, db),
  ]);
  if (summary.length === 0 && passRows.length === 0 && boundaryRows.length === 0) return null;
  const wire = passRows.map(toPassWire);
  const boundaryWire = boundaryRows.map(toBoundaryWire);
  const contentClass = summary[0]?.contentClass ?? wire.at(-1)?.content_class ?? "default";
  const planted: PlantedCanary[] = wire.flatMap((p) =>
    (p.canaries ?? []).map((c) => ({ ...c, pass_number: p.pass_number })),
  );
  // The class's canary floor, read only for a chain that has canaries.
  const canaryFloor =
    planted.length === 0
      ? null
      : ((await getPoliciesInForce([contentClass], db)).get(contentClass)?.min_canary_retention ?? null);
  // The chain follows each pass's effective verdict (density_source), as its summary does.
  const collapse = wire.find((p) => COLLAPSE_VERDICTS.has(p.effective_verdict));
  return {
    chain_id: chainId,
    content_class: contentClass,
    passes: wire,
    boundaries: boundaryWire,
    collapse_point: collapse
      ? { pass_id: collapse.pass_id, pass_number: collapse.pass_number, verdict: collapse.effective_verdict }
      : null,
    integrity: [
      ...findIntegrityIssues(wire, integrityContext(wire, boundaryWire, wire)),
      ...canaryFindings(wire, planted, canaryFloor),
      ...markerFindings,
    ],
    client_mismatches: wire.filter((p) => p.client_mismatch).length,
    checked_mismatches: wire.filter((p) => p.checked_mismatch).length,
    measurement_mismatches: wire.filter((p) => p.measurement_mismatch).length,
    service_name: summary[0]?.serviceName ?? null,
  };
}

/** Whether content went past a floor: the `collapsed` condition (db/schema/chains.ts `chainOutcome`), on a read row. */
function hasCollapsed(c: ChainRecord): boolean {
  return (
    c.continuedAfterHaltCount > 0 ||
    c.restoreNotHonouredCount > 0 ||
    (c.unansweredFloorPassNumber !== null &&
      c.lastPassNumber !== null &&
      c.unansweredFloorPassNumber < c.lastPassNumber)
  );
}

export function statusesOf(c: ChainRecord): ChainStatus[] {
  const s: ChainStatus[] = [];
  if (hasCollapsed(c)) s.push("collapsed");
  else if (c.floorAnswered) s.push("guarded");
  if (c.hasCollapseImminent) s.push("collapse_imminent");
  if (c.hasFloorBreach) s.push("floor_breached");
  if (c.mismatchCount > 0) s.push("client_mismatch");
  if (c.checkedMismatchCount > 0) s.push("checked_mismatch");
  if (c.measurementMismatchCount > 0) s.push("measurement_mismatch");
  if (c.integrityCount > 0) s.push("broken_integrity");
  if (c.continuedAfterHaltCount > 0) s.push("continued_after_halt");
  if (c.restoreNotHonouredCount > 0) s.push("restore_not_honoured");
  if (c.canaryFindingCount > 0) s.push("canary_lost");
  if (c.markerFindingCount > 0) s.push("broken_markers");
  return s.length > 0 ? s : ["healthy"];
}

export function toChainSummaryWire(c: ChainRecord): ChainSummaryWire {
  return {
    chain_id: c.chainId,
    content_class: c.contentClass,
    pass_count: c.passCount,
    boundary_count: c.boundaryCount,
    last_pass_id: c.lastPassId,
    last_pass_number: c.lastPassNumber,
    last_verdict: c.lastVerdict as Verdict | null,
    collapse_point:
      c.collapsePassId !== null && c.collapsePassNumber !== null
        ? { pass_id: c.collapsePassId, pass_number: c.collapsePassNumber, verdict: c.collapseVerdict as Verdict }
        : null,
    statuses: statusesOf(c),
    client_mismatches: c.mismatchCount,
    checked_mismatches: c.checkedMismatchCount,
    measurement_mismatches: c.measurementMismatchCount,
    service_name: c.serviceName,
    integrity_findings: c.integrityCount,
    min_semantic_density: c.minDensity,
    min_measured_density: c.minMeasuredDensity,
    min_size_bytes: c.minSizeBytes,
    first_seen_at: c.firstSeenAt.toISOString(),
    last_activity_at: c.lastActivityAt.toISOString(),
  };
}

const OUTCOME = chainOutcome(chains);

const STATUS_FILTER: Record<ChainStatusFilter, SQL> = {
  collapsed: OUTCOME.collapsed,
  guarded: OUTCOME.guarded,
  continued_after_halt: sql`${chains.continuedAfterHaltCount} > 0`,
  restore_not_honoured: sql`${chains.restoreNotHonouredCount} > 0`,
  // The marker count's conjunct is extra to chains_healthy_idx's predicate, which still implies it.
  healthy: sql`not ${chains.hasFloorBreach} and not ${chains.hasCollapseImminent} and ${chains.mismatchCount} = 0 and ${chains.checkedMismatchCount} = 0 and ${chains.measurementMismatchCount} = 0 and ${chains.integrityCount} = 0 and ${chains.markerFindingCount} = 0`,
  collapse_imminent: sql`${chains.hasCollapseImminent}`,
  floor_breached: sql`${chains.hasFloorBreach}`,
  client_mismatch: sql`${chains.mismatchCount} > 0`,
  checked_mismatch: sql`${chains.checkedMismatchCount} > 0`,
  measurement_mismatch: sql`${chains.measurementMismatchCount} > 0`,
  broken_integrity: sql`${chains.integrityCount} > 0`,
  canary_lost: sql`${chains.canaryFindingCount} > 0`,
  broken_markers: sql`${chains.markerFindingCount} > 0`,
};

/** The SQL condition of one status filter over `chains` (the overview counts with the same ones). */
export function chainStatusCondition(status: ChainStatusFilter): SQL {
  return STATUS_FILTER[status];
}

/** Where a row stands in the `attention` order (the urgency expression of chainOutcome), from the read row. */
function urgencyOf(c: ChainRecord): number {
  if (hasCollapsed(c)) return 2;
  const problem =
    c.mismatchCount > 0 ||
    c.checkedMismatchCount > 0 ||
    c.measurementMismatchCount > 0 ||
    c.integrityCount > 0 ||
    c.markerFindingCount > 0 ||
    ((c.hasFloorBreach || c.hasCollapseImminent) && !c.floorAnswered);
  return problem ? 1 : 0;
}

// Sort keys are never null (coalesced), so one keyset comparison works for every sort: the
// row of the key's parts, then the chain id. Each sort has an index of its own
// (db/schema/chains.ts) on exactly these expressions: keep the two identical.
const SORT_KEYS: Record<ChainSort, { parts: { expr: SQL; cast: SQL }[]; fromRow: (c: ChainRecord) => ChainKey }> = {
  attention: {
    parts: [
      { expr: OUTCOME.urgency, cast: sql`integer` },
      { expr: sql`${chains.lastActivityAt}`, cast: sql`timestamptz` },
    ],
    fromRow: (c) => [urgencyOf(c), c.lastActivityAt.toISOString(), c.chainId],
  },
  last_activity: {
    parts: [{ expr: sql`${chains.lastActivityAt}`, cast: sql`timestamptz` }],
    fromRow: (c) => [c.lastActivityAt.toISOString(), c.chainId],
  },
  pass_count: {
    parts: [{ expr: sql`${chains.passCount}`, cast: sql`integer` }],
    fromRow: (c) => [c.passCount, c.chainId],
  },
  min_density: {
    parts: [{ expr: sql`coalesce(${chains.minDensity}, 2)`, cast: sql`double precision` }],
    fromRow: (c) => [c.minDensity ?? 2, c.chainId],
  },
  min_measured_density: {
    parts: [{ expr: sql`coalesce(${chains.minMeasuredDensity}, 2)`, cast: sql`double precision` }],
    fromRow: (c) => [c.minMeasuredDensity ?? 2, c.chainId],
  },
  min_size: {
    parts: [{ expr: sql`coalesce(${chains.minSizeBytes}, 9007199254740991)`, cast: sql`bigint` }],
    fromRow: (c) => [c.minSizeBytes ?? Number.MAX_SAFE_INTEGER, c.chainId],
  },
};

export interface ChainFilter {
  /** Any of these (an empty list filters nothing). */
  status?: ChainStatusFilter[];
  /** A marker finding of any of these kinds. */
  marker_kind?: MarkerFindingKind[];
  content_class?: string;
  service?: string;
  q?: string;
  /** Last activity within this range of now, as the overview's figures count. */
  range?: RangeKey;
}

function chainFilter(filter: ChainFilter): SQL[] {
  const where: SQL[] = [];
  if (filter.status?.length)
    where.push(
      sql`(${sql.join(
        filter.status.map((s) => STATUS_FILTER[s]),
        sql` or `,
      )})`,
    );
  // Through the chains that have marker findings (chains_marker_finding_idx), then each one's
  // findings by chain (marker_findings_chain_idx): never a scan of every finding.
  if (filter.marker_kind?.length)
    where.push(
      sql`${chains.markerFindingCount} > 0 and exists (select 1 from marker_findings mf where mf.chain_id = ${chains.chainId} and mf.kind in (${sql.join(
        filter.marker_kind.map((k) => sql`${k}`),
        sql`, `,
      )}))`,
    );
  const since = filter.range ? rangeStart(filter.range, new Date(), null) : null;
  if (since) where.push(sql`${chains.lastActivityAt} >= ${since.toISOString()}::timestamptz`);
  if (filter.content_class) where.push(eq(chains.contentClass, filter.content_class));
  if (filter.service) where.push(eq(chains.serviceName, filter.service));
  // Case-insensitive like ilike, in the form the trigram index on lower(chain_id) answers.
  if (filter.q)
    where.push(sql`lower(${chains.chainId}) like lower(${"%" + filter.q.replace(/[\\%_]/g, "\\$&") + "%"})`);
  return where;
}

/**
 * Keyset pages over the chain summaries. `after` is the last row's (sort key, chain id) of
 * the page before; `before` the first row's of the page after, for paging back. `prev` and
 * `next` are the keys to pass on, null at either end (`prev` only when `withPrev`).
 */
export async function listChains(
  query: ChainListQuery & { after?: ChainKey; before?: ChainKey; withPrev?: boolean },
): Promise<{ items: ChainSummaryWire[]; next: ChainKey | null; prev: ChainKey | null }> {
  const db = await getReadDb();
  const key = SORT_KEYS[query.sort];
  const where = chainFilter(query);
  const page = await keysetPage<ChainRecord, ChainKey>({
    limit: query.limit,
    after: query.after,
    before: query.before,
    keyOf: key.fromRow,
    neighbours: query.withPrev ? "check" : "none",
    restartWhenShort: true,
    read: (from, forward, limit) => {
      const { op, asc: ascending } = keysetDirection(query.order === "desc", forward);
      const exprs = [...key.parts.map((p) => p.expr), sql`${chains.chainId}`];
      // The cursor was decoded against this sort's tuple (decodeChainCursor): one value per part.
      const values = from?.map((v, i) => {
        const part = key.parts[i];
        return part ? sql`${v}::${part.cast}` : sql`${v}`;
      });
      const position = values ? sql`(${sql.join(exprs, sql`, `)}) ${op} (${sql.join(values, sql`, `)})` : undefined;
      return db
        .select()
        .from(chains)
        .where(and(...where, position))
        .orderBy(...exprs.map((e) => (ascending ? asc(e) : desc(e))))
        .limit(limit);
    },
  });
  return { ...page, items: page.items.map(toChainSummaryWire) };
}

/** Every chain matching a filter, in list order, read in keyset pages so memory stays flat. */
export async function* iterateChains(
  query: ChainFilter & { sort: ChainSort; order: "asc" | "desc" },
  pageSize = 1_000,
): AsyncGenerator<ChainSummaryWire[]> {
  let after: ChainKey | undefined;
  for (;;) {
    const { items, next } = await listChains({ ...query, limit: pageSize, after });
    if (items.length > 0) yield items;
    if (!next) return;
    after = next;
  }
}

/**
 * The distinct non-null values of a column of `chains`, read by skipping through the
 * column's index (one probe per value) rather than scanning the chains.
 */
async function distinctChainValues(db: Executor, column: "content_class" | "service_name"): Promise<string[]> {
  const c = sql.identifier(column);
  const rows = await queryRows(
    db,
    sql`
      with recursive seen(v) as (
        (select ${c} from chains where ${c} is not null order by ${c} limit 1)
        union all
        select (select ch.${c} from chains ch where ch.${c} > seen.v order by ch.${c} limit 1)
        from seen where seen.v is not null
      )
      select v from seen where v is not null`,
    { v: col.text },
  );
  return rows.map((r) => r.v);
}

/** The content classes chains belong to. */
export async function listChainClasses(): Promise<string[]> {
  return distinctChainValues(await getReadDb(), "content_class");
}

/** The OpenTelemetry service names chains came from. */
export async function listChainServices(): Promise<string[]> {
  return distinctChainValues(await getSettledDb(), "service_name");
}

export async function getChainSummary(chainId: string): Promise<ChainSummaryWire | null> {
  const db = await getReadDb();
  const [row] = await db.select().from(chains).where(eq(chains.chainId, chainId));
  return row ? toChainSummaryWire(row) : null;
}

/** Whether the chain page has a chain to show: the summary row its page reads. */
export async function chainExists(chainId: string): Promise<boolean> {
  const db = await getReadDb();
  const rows = await db.select({ id: chains.chainId }).from(chains).where(eq(chains.chainId, chainId)).limit(1);
  return rows.length > 0;
}

/** Where the chains list stops counting: past it, the page says "10,000+". */
export const CHAIN_COUNT_CAP = 10_000;

/** Shorter searches have no trigram to look up: counting them would read every chain. */
const MIN_COUNTED_SEARCH = 3;

/**
 * How many chains match a filter, counted up to CHAIN_COUNT_CAP + 1 at most: a page never
 * counts a whole table. `capped` means there are more than `count`; null means not counted
 * (a search shorter than three characters).
 */
export async function countChains(filter: ChainFilter): Promise<{ count: number; capped: boolean } | null> {
  if (filter.q !== undefined && [...filter.q].length < MIN_COUNTED_SEARCH) return null;
  const db = await getReadDb();
  const where = chainFilter(filter);
  const rows = await queryRows(
    db,
    sql`select count(*) as n from (
      select 1 from ${chains} ${where.length ? sql`where ${and(...where)}` : sql``} limit ${CHAIN_COUNT_CAP + 1}
    ) as matching`,
    { n: col.int },
  );
  const { n } = onlyRow(rows);
  return n > CHAIN_COUNT_CAP ? { count: CHAIN_COUNT_CAP, capped: true } : { count: n, capped: false };
}

/**
 * What changes when a chain receives passes or boundaries: cheap to read every second. By
 * default it waits for the summaries of what this process stored (a stream opened after an
 * ingest shows it); `settled: false` reads what is folded so far, for the streams' change
 * checks, which look again at the next notification or poll. Those checks must not wait: a
 * reader waiting starts the summariser's next run at once, and with streams open on the
 * embedded database every batch was then folded on its own, on the app's one thread.
 */
export async function getChainVersion(
  chainId: string,
  { settled = true }: { settled?: boolean } = {},
): Promise<ChainVersion | null> {
  const db = settled ? await getSettledDb() : await getDb();
  const [row] = await db
    .select({
      passCount: chains.passCount,
      boundaryCount: chains.boundaryCount,
      lastPassNumber: chains.lastPassNumber,
      lastVerdict: chains.lastVerdict,
      lastActivityAt: chains.lastActivityAt,
    })
    .from(chains)
    .where(eq(chains.chainId, chainId));
  return row
    ? {
        pass_count: row.passCount,
        boundary_count: row.boundaryCount,
        last_pass_number: row.lastPassNumber,
        last_verdict: row.lastVerdict,
        last_activity_at: row.lastActivityAt.toISOString(),
      }
    : null;
}

/** Chains and collapsed chains per content class over the recorded history (retention keeps their counts). */
export async function listClassStats(): Promise<ClassStats[]> {
  const db = await getReadDb();
  // From the daily roll-up: one row per day of history and class, never one per chain.
  return queryRows(
    db,
    sql`
      select content_class, sum(started_chains) as chains, sum(started_collapsed) as collapsed
      from chain_rollups_daily
      group by content_class
      having sum(started_chains) > 0
      order by content_class`,
    { content_class: col.text, chains: col.int, collapsed: col.int },
  );
}
