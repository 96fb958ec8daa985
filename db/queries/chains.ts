import "server-only";
import { and, asc, desc, eq, gt, lt, or, sql, type SQL } from "drizzle-orm";
import { getDb } from "../index";
import { boundaries, chains, passes } from "../schema";
import { toBoundaryWire, type BoundaryWire } from "./boundaries";
import { findIntegrityIssues, type IntegrityFinding } from "@/lib/chain-integrity";
import { COLLAPSE_VERDICTS, type Verdict } from "@/lib/guard";
import type { ChainListQuery } from "@/lib/schemas/chains";

type PassRecord = typeof passes.$inferSelect;
type ChainRecord = typeof chains.$inferSelect;

export interface PassWire {
  chain_id: string;
  pass_id: string;
  pass_number: number;
  input_content_hash: string | null;
  current_content_hash: string;
  current_size_bytes: number;
  is_parseable: boolean;
  schema_valid: boolean;
  semantic_density_score: number;
  content_class: string;
  metadata: Record<string, unknown> | null;
  created_at: string;
  received_at: string;
  verdict: Verdict;
  directive: string;
  manifest_digest: string;
  policy_version: number;
  client_verdict: string | null;
  client_manifest_digest: string | null;
  client_mismatch: boolean;
}

export function toPassWire(p: PassRecord): PassWire {
  return {
    chain_id: p.chainId,
    pass_id: p.passId,
    pass_number: p.passNumber,
    input_content_hash: p.inputContentHash,
    current_content_hash: p.currentContentHash,
    current_size_bytes: p.currentSizeBytes,
    is_parseable: p.isParseable,
    schema_valid: p.schemaValid,
    semantic_density_score: p.semanticDensityScore,
    content_class: p.contentClass,
    metadata: p.metadata,
    created_at: p.createdAt.toISOString(),
    received_at: p.receivedAt.toISOString(),
    verdict: p.verdict as Verdict,
    directive: p.directive,
    manifest_digest: p.manifestDigest,
    policy_version: p.policyVersion,
    client_verdict: p.clientVerdict,
    client_manifest_digest: p.clientManifestDigest,
    client_mismatch: p.clientMismatch,
  };
}

export interface CollapsePoint {
  pass_id: string;
  pass_number: number;
  verdict: Verdict;
}

export interface ChainDetail {
  chain_id: string;
  content_class: string;
  passes: PassWire[];
  boundaries: BoundaryWire[];
  collapse_point: CollapsePoint | null;
  integrity: IntegrityFinding[];
  client_mismatches: number;
}

export async function getChain(chainId: string): Promise<ChainDetail | null> {
  const db = await getDb();
  const [summary, passRows, boundaryRows] = await Promise.all([
    db.select().from(chains).where(eq(chains.chainId, chainId)),
    db.select().from(passes).where(eq(passes.chainId, chainId)).orderBy(asc(passes.passNumber), asc(passes.id)),
    db.select().from(boundaries).where(eq(boundaries.chainId, chainId)).orderBy(asc(boundaries.passNumber)),
  ]);
  if (summary.length === 0 && passRows.length === 0 && boundaryRows.length === 0) return null;
  const wire = passRows.map(toPassWire);
  const collapse = wire.find((p) => COLLAPSE_VERDICTS.has(p.verdict));
  return {
    chain_id: chainId,
    content_class: summary[0]?.contentClass ?? wire.at(-1)?.content_class ?? "default",
    passes: wire,
    boundaries: boundaryRows.map(toBoundaryWire),
    collapse_point: collapse ? { pass_id: collapse.pass_id, pass_number: collapse.pass_number, verdict: collapse.verdict } : null,
    integrity: findIntegrityIssues(wire),
    client_mismatches: wire.filter((p) => p.client_mismatch).length,
  };
}

export const CHAIN_STATUSES = ["healthy", "collapse_imminent", "floor_breached", "client_mismatch", "broken_integrity"] as const;
export type ChainStatus = (typeof CHAIN_STATUSES)[number];

export interface ChainSummaryWire {
  chain_id: string;
  content_class: string;
  pass_count: number;
  boundary_count: number;
  last_pass_id: string | null;
  last_pass_number: number | null;
  last_verdict: Verdict | null;
  collapse_point: CollapsePoint | null;
  statuses: ChainStatus[];
  client_mismatches: number;
  integrity_findings: number;
  min_semantic_density: number | null;
  min_size_bytes: number | null;
  first_seen_at: string;
  last_activity_at: string;
}

export function statusesOf(c: ChainRecord): ChainStatus[] {
  const s: ChainStatus[] = [];
  if (c.hasCollapseImminent) s.push("collapse_imminent");
  if (c.hasFloorBreach) s.push("floor_breached");
  if (c.mismatchCount > 0) s.push("client_mismatch");
  if (c.integrityCount > 0) s.push("broken_integrity");
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
      c.collapsePassId !== null
        ? { pass_id: c.collapsePassId, pass_number: c.collapsePassNumber!, verdict: c.collapseVerdict as Verdict }
        : null,
    statuses: statusesOf(c),
    client_mismatches: c.mismatchCount,
    integrity_findings: c.integrityCount,
    min_semantic_density: c.minDensity,
    min_size_bytes: c.minSizeBytes,
    first_seen_at: c.firstSeenAt.toISOString(),
    last_activity_at: c.lastActivityAt.toISOString(),
  };
}

const STATUS_FILTER: Record<ChainStatus, SQL> = {
  healthy: sql`not ${chains.hasFloorBreach} and not ${chains.hasCollapseImminent} and ${chains.mismatchCount} = 0 and ${chains.integrityCount} = 0`,
  collapse_imminent: sql`${chains.hasCollapseImminent}`,
  floor_breached: sql`${chains.hasFloorBreach}`,
  client_mismatch: sql`${chains.mismatchCount} > 0`,
  broken_integrity: sql`${chains.integrityCount} > 0`,
};

// Sort keys are never null (coalesced), so one keyset comparison works for every sort.
const SORT_KEYS = {
  last_activity: { expr: sql`${chains.lastActivityAt}`, fromRow: (c: ChainRecord) => c.lastActivityAt.toISOString(), cast: sql`timestamptz` },
  pass_count: { expr: sql`${chains.passCount}`, fromRow: (c: ChainRecord) => c.passCount, cast: sql`integer` },
  min_density: { expr: sql`coalesce(${chains.minDensity}, 2)`, fromRow: (c: ChainRecord) => c.minDensity ?? 2, cast: sql`double precision` },
  min_size: {
    expr: sql`coalesce(${chains.minSizeBytes}, 9007199254740991)`,
    fromRow: (c: ChainRecord) => c.minSizeBytes ?? Number.MAX_SAFE_INTEGER,
    cast: sql`bigint`,
  },
} as const;
export type ChainSort = keyof typeof SORT_KEYS;
export const CHAIN_SORTS = Object.keys(SORT_KEYS) as ChainSort[];

/** Keyset pages over the chain summaries: `cursor` is the last row's (sort key, chain id). */
export async function listChains(query: ChainListQuery & { after?: [string | number, string] }): Promise<{ items: ChainSummaryWire[]; next: [string | number, string] | null }> {
  const db = await getDb();
  const key = SORT_KEYS[query.sort];
  const descending = query.order === "desc";
  const where: SQL[] = [];
  if (query.status) where.push(STATUS_FILTER[query.status]);
  if (query.content_class) where.push(eq(chains.contentClass, query.content_class));
  if (query.q) where.push(sql`${chains.chainId} ilike ${"%" + query.q.replace(/[\\%_]/g, "\\$&") + "%"}`);
  if (query.after) {
    const [value, id] = query.after;
    const v = sql`${value}::${key.cast}`;
    where.push(
      descending
        ? or(sql`${key.expr} < ${v}`, and(sql`${key.expr} = ${v}`, lt(chains.chainId, id)))!
        : or(sql`${key.expr} > ${v}`, and(sql`${key.expr} = ${v}`, gt(chains.chainId, id)))!,
    );
  }
  const rows = await db
    .select()
    .from(chains)
    .where(where.length ? and(...where) : undefined)
    .orderBy(descending ? desc(key.expr) : asc(key.expr), descending ? desc(chains.chainId) : asc(chains.chainId))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map(toChainSummaryWire),
    next: rows.length > query.limit && last ? [key.fromRow(last), last.chainId] : null,
  };
}
