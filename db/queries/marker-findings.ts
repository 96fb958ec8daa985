// Marker integrity findings (docs/markers.md), recorded where they become known: at the ingest
// of a pass whose content carries markers (or whose input is a retrieved original), when an
// original a chain still points at expires or is evicted, and when an agent asks for such an
// original. Every lookup goes through an index by hash (originals' key and prefix indexes,
// pass_markers_original_idx); the findings go with their pass.
import "server-only";
import { type SQL, sql } from "drizzle-orm";
import { col, queryRows } from "../sql";
import type { Executor } from "../types";
import { getReadDb } from "../index";
import { numberArray, textArray } from "../ingest/pg-arrays";
import { recordEvents, type OutboxEvent } from "./webhooks";
import type { IntegrityFinding } from "@/lib/chains/integrity";
import {
  ACTIVE_CHAIN_WINDOW_MS,
  goneDetail,
  judgeMarkers,
  MARKER_FINDING_KINDS,
  type MarkerFindingCounts,
  type MarkerFindingKind,
  type MarkerJudgement,
  type MarkerOriginal,
  recompressedDetail,
} from "@/lib/markers/findings";

/** One inserted pass as its marker findings need it. */
export interface MarkedPassRow {
  chain_id: string;
  pass_id: string;
  pass_number: number;
  content_class: string;
  /** The markers its content carries (lib/measure/markers.ts findMarkers), distinct. */
  markers: readonly string[];
  /** Its input hash when it is a SHA-256 (lower case): a retrieved original compressed again. */
  input_hash: string | null;
  context_tools: readonly string[] | null;
}

interface FindingRow extends MarkerJudgement {
  chain_id: string;
  pass_id: string;
  pass_number: number;
  content_class: string;
}

// A marker the original's text itself carries, its key captured: the two forms
// lib/measure/markers.ts reads.
const INNER_MARKER = String.raw`(?:hash=|<<ccr:)([0-9a-fA-F]{12,64})(?:[^0-9a-fA-F]|$)`;
/**
 * Whether an original's text carries a marker that leads nowhere: one whose key names no live
 * original of the default tenant (by hash or alternate key). A marker inside an original that
 * this store still holds is one more retrieval, not a dead end: a chain whose compressor caches
 * its input each pass (the SDKs' cacheOriginals) nests by construction and stays whole.
 */
const NESTED_DEAD_END = (original: SQL) => sql`coalesce((
    select bool_or(not exists (
      select 1 from originals i
      where i.tenant = '' and i.status = 'live' and (i.expires_at is null or i.expires_at > now())
        and ((i.hash ~>=~ lower(m[1]) and i.hash ~<~ (lower(m[1]) || 'g'))
          or (i.alt_hash is not null and i.alt_hash ~>=~ lower(m[1]) and i.alt_hash ~<~ (lower(m[1]) || 'g')))))
    from regexp_matches(${original}, ${INNER_MARKER}, 'g') as m), false)`;

/** An original's state as the findings read it (by hash, the primary key). */
const STATE_ROW = {
  hash: col.text,
  status: col.text,
  gone_at: col.date.nullable(),
  gone_reason: col.text.nullable(),
  expired: col.bool,
  retrieval_count: col.int,
  chain_id: col.text.nullable(),
};

interface MarkerLink {
  chain_id: string;
  pass_id: string;
  pass_number: number;
  marker: string;
  original_hash: string;
}

/** Marker key → the one original it names and whether that original's text carries a marker. */
const RESOLVED = new Map<string, { hash: string; nested: boolean }>();
const RESOLVED_MAX = 20_000;
const remember = (key: string, named: { hash: string; nested: boolean }) => {
  if (RESOLVED.size >= RESOLVED_MAX) RESOLVED.delete(RESOLVED.keys().next().value as string);
  RESOLVED.set(key, named);
};

/**
 * Judges the markers and inputs of passes this ingest inserted and records the findings (with
 * their webhook events) and the passes' markers that named an original. `heldInBatch` says
 * whether a marker names an original this same batch is about to store (`cache_original`).
 * One lookup and one insert for the batch; nothing at all for passes without markers or a
 * SHA-256 input. Answers the kinds the outbox took, for the metrics once committed.
 */
export async function recordIngestMarkerFindings(
  tx: Executor,
  rows: readonly MarkedPassRow[],
  heldInBatch: (marker: string) => boolean = () => false,
): Promise<MarkerFindingKind[]> {
  const keys = [...new Set(rows.flatMap((r) => r.markers))];
  const inputs = [...new Set(rows.flatMap((r) => (r.input_hash ? [r.input_hash] : [])))];
  if (keys.length === 0 && inputs.length === 0) return [];
  // Which original a key names, and whether its text carries a marker, never change (an original
  // is stored under the hash of its text): known keys are not looked up by prefix again.
  const unresolved = keys.filter((k) => !RESOLVED.has(k));
  // Keys that name several originals (looked up again each time).
  const ambiguousNow = new Set<string>();
  if (unresolved.length > 0) {
    const named = await queryRows(
      tx,
      sql`select k.key, o.hash, ${NESTED_DEAD_END(sql`o.original`)} as nested
          from json_array_elements_text(${JSON.stringify(unresolved)}::json) as k(key)
          cross join lateral (
            (select hash, original from originals
              where tenant = '' and hash ~>=~ k.key and hash ~<~ (k.key || 'g') limit 2)
            union all
            (select hash, original from originals
              where tenant = '' and alt_hash is not null and alt_hash ~>=~ k.key and alt_hash ~<~ (k.key || 'g') limit 2)
          ) as o`,
      { key: col.text, hash: col.text, nested: col.bool },
    );
    const byKey = new Map<string, { hash: string; nested: boolean }[]>();
    for (const n of named) {
      const hits = byKey.get(n.key) ?? [];
      // Its hash and its alternate key can both match the one original.
      if (!hits.some((h) => h.hash === n.hash)) byKey.set(n.key, [...hits, { hash: n.hash, nested: n.nested }]);
    }
    for (const [key, hits] of byKey) {
      // One original only: a key that names none may name one later, an ambiguous one is left as it is.
      const [only, other] = hits;
      if (only && !other) remember(key, only);
      else ambiguousNow.add(key);
    }
  }
  // The state of the originals the keys name (it changes: expiry, eviction) and of the inputs
  // that are originals an agent retrieved, by the primary key.
  const resolvedHashes = keys.flatMap((k) => {
    const r = RESOLVED.get(k);
    return r ? [r.hash] : [];
  });
  const lookup = [...new Set([...resolvedHashes, ...inputs])];
  const states =
    lookup.length === 0
      ? []
      : await queryRows(
          tx,
          sql`select hash, status, gone_at, gone_reason,
                (status = 'live' and expires_at is not null and expires_at <= now()) as expired,
                retrieval_count, chain_id
              from originals
              where tenant = '' and hash in (select json_array_elements_text(${JSON.stringify(lookup)}::json))`,
          STATE_ROW,
        );
  const stateOf = new Map(states.map((o) => [o.hash, o]));
  const originalOf = (marker: string): MarkerOriginal => {
    if (ambiguousNow.has(marker)) return { state: "ambiguous" };
    const named = RESOLVED.get(marker);
    const o = named ? stateOf.get(named.hash) : undefined;
    if (!named || !o) return heldInBatch(marker) ? { state: "held" } : { state: "none" };
    if (o.status !== "live" || o.expired) {
      return {
        state: "gone",
        hash: o.hash,
        status: o.status === "evicted" ? "evicted" : "expired",
        gone_at: o.gone_at ?? new Date(),
        reason: o.gone_reason ?? (o.expired ? "its time to live ran out" : null),
      };
    }
    return { state: "live", hash: o.hash, nested: named.nested };
  };
  const retrieved = (hash: string) => {
    const o = stateOf.get(hash);
    return o && o.retrieval_count > 0 ? o : undefined;
  };
  const findings: FindingRow[] = [];
  const linked = new Map<string, MarkerLink & { content_class: string }>();
  for (const r of rows) {
    const at = { chain_id: r.chain_id, pass_id: r.pass_id, pass_number: r.pass_number, content_class: r.content_class };
    for (const j of judgeMarkers(r, originalOf)) findings.push({ ...at, ...j });
    for (const marker of r.markers) {
      const o = originalOf(marker);
      if (o.state !== "live" && o.state !== "gone") continue;
      // The first pass of the batch per chain and original is enough for an expiry to find the chain.
      const link = `${r.chain_id}\u0000${o.hash}`;
      const seen = linked.get(link);
      if (!seen) linked.set(link, { ...at, marker, original_hash: o.hash });
      else if (r.pass_number < seen.pass_number) Object.assign(seen, { ...at, marker });
    }
    const input = r.input_hash ? retrieved(r.input_hash) : undefined;
    // An original cached from this chain's own output is the chain going on, not a retrieve's answer.
    if (input && input.chain_id !== r.chain_id) {
      findings.push({
        ...at,
        kind: "retrieve_recompressed",
        hash: input.hash,
        detail: recompressedDetail(input.hash, input.retrieval_count),
      });
    }
  }
  return insertFindings(
    tx,
    findings,
    [...linked.values()].map(({ content_class: _, ...l }) => l),
  );
}

/**
 * An original went (expired, evicted or deleted: db/queries/originals/eviction.ts `tombstone`),
 * or an agent asked for one that had gone: each pass whose markers named it, of a chain active
 * within ACTIVE_CHAIN_WINDOW_MS before `at` (the time it went, or the ask), gets a
 * `marker_expired` finding. At most MAX_GONE_FINDINGS per call, through pass_markers_original_idx.
 */
export async function recordGoneMarkerFindings(
  tx: Executor,
  gone: readonly { hash: string; status: "evicted" | "expired"; gone_at: Date; reason: string | null; at?: Date }[],
): Promise<MarkerFindingKind[]> {
  if (gone.length === 0) return [];
  const given = gone.map((g) => ({
    hash: g.hash,
    since: new Date((g.at ?? g.gone_at).getTime() - ACTIVE_CHAIN_WINDOW_MS).toISOString(),
  }));
  const hits = await queryRows(
    tx,
    sql`select m.chain_id, m.pass_id, m.pass_number, m.marker, m.original_hash, p.content_class
        from json_to_recordset(${JSON.stringify(given)}::json) as g(hash text, since timestamptz)
        join pass_markers m on m.original_hash = g.hash
        join passes p on p.chain_id = m.chain_id and p.pass_id = m.pass_id
        left join chains c on c.chain_id = m.chain_id
        where greatest(c.last_activity_at, p.received_at) >= g.since
        limit ${MAX_GONE_FINDINGS}`,
    {
      chain_id: col.text,
      pass_id: col.text,
      pass_number: col.int,
      marker: col.text,
      original_hash: col.text,
      content_class: col.text,
    },
  );
  if (hits.length === 0) return [];
  const byHash = new Map(gone.map((g) => [g.hash, g]));
  const findings = hits.flatMap((h): FindingRow[] => {
    const g = byHash.get(h.original_hash);
    if (!g) return [];
    return [
      {
        chain_id: h.chain_id,
        pass_id: h.pass_id,
        pass_number: h.pass_number,
        content_class: h.content_class,
        kind: "marker_expired",
        hash: h.marker,
        detail: goneDetail(h.marker, { hash: g.hash, status: g.status, gone_at: g.gone_at, reason: g.reason }),
      },
    ];
  });
  const kinds = await insertFindings(tx, findings, []);
  // The chains summarised already count them now; one not yet summarised counts them when it is.
  await refreshMarkerFindingCounts(tx, [...new Set(findings.map((f) => f.chain_id))]);
  return kinds;
}

const MAX_GONE_FINDINGS = 1_000;

async function insertFindings(
  tx: Executor,
  findings: readonly FindingRow[],
  links: readonly MarkerLink[],
): Promise<MarkerFindingKind[]> {
  if (findings.length === 0 && links.length === 0) return [];
  const now = new Date().toISOString();
  const inserted = await queryRows(
    tx,
    // The links as one array per column (db/ingest/pg-arrays.ts), and with no conflict clause:
    // they name passes this transaction inserted, at most one per chain and original, so none
    // can be stored already; the worst case (new markers every pass) writes two a pass.
    sql`with linked as (
          insert into pass_markers (chain_id, pass_id, pass_number, marker, original_hash, created_at)
          select *, ${now}::timestamptz
          from unnest(${textArray(links, (l) => l.chain_id)}::text[], ${textArray(links, (l) => l.pass_id)}::text[],
            ${numberArray(links, (l) => l.pass_number)}::bigint[], ${textArray(links, (l) => l.marker)}::text[],
            ${textArray(links, (l) => l.original_hash)}::text[])
        ),
        found as (
          insert into marker_findings (chain_id, pass_id, pass_number, kind, hash, detail, found_at)
          select chain_id, pass_id, pass_number, kind, hash, detail, ${now}::timestamptz
          from json_to_recordset(${JSON.stringify(findings.map(({ content_class: _, ...f }) => f))}::json)
            as f(chain_id text, pass_id text, pass_number bigint, kind text, hash text, detail text)
          on conflict do nothing
          returning chain_id, pass_id, kind, hash
        )
        select chain_id, pass_id, kind, hash from found`,
    { chain_id: col.text, pass_id: col.text, kind: col.oneOf(MARKER_FINDING_KINDS), hash: col.text },
  );
  if (inserted.length === 0) return [];
  const key = (f: { chain_id: string; pass_id: string; kind: string; hash: string }) =>
    JSON.stringify([f.chain_id, f.pass_id, f.kind, f.hash]);
  const fresh = new Set(inserted.map(key));
  const events: OutboxEvent[] = findings
    .filter((f) => fresh.has(key(f)))
    .map((f) => ({
      type: "chain.integrity_finding",
      dedupeKey: JSON.stringify(["chain.integrity_finding", f.chain_id, f.kind, f.pass_id, f.pass_number, f.hash]),
      data: {
        chain_id: f.chain_id,
        content_class: f.content_class,
        pass_id: f.pass_id,
        pass_number: f.pass_number,
        kind: f.kind,
        hash: f.hash,
        detail: f.detail,
      },
    }));
  await recordEvents(tx, events);
  // Counted as the findings are, whether or not a webhook wants them.
  return inserted.map((f) => f.kind);
}

/**
 * Sets the summaries' marker_finding_count of these chains from their findings (the summariser
 * calls it for the chains it folds: findings found at ingest precede their chain's summary).
 */
export async function refreshMarkerFindingCounts(tx: Executor, chainIds: readonly string[]): Promise<void> {
  if (chainIds.length === 0) return;
  await tx.execute(sql`
    update chains c set marker_finding_count = f.n
    from (
      select chain_id, count(*)::int as n from marker_findings
      where chain_id in (select json_array_elements_text(${JSON.stringify(chainIds)}::json))
      group by chain_id
    ) as f
    where c.chain_id = f.chain_id and c.marker_finding_count <> f.n`);
}

/** The chain page shows at most this many marker findings (the count says how many there are). */
const CHAIN_FINDINGS_LIMIT = 500;

/** A chain's marker findings in chain order, as the wire's integrity findings (with the hash). */
export async function getMarkerFindings(chainId: string, executor?: Executor): Promise<IntegrityFinding[]> {
  const rows = await queryRows(
    executor ?? (await getReadDb()),
    sql`select pass_id, pass_number, kind, hash, detail from marker_findings
        where chain_id = ${chainId} order by pass_number, id limit ${CHAIN_FINDINGS_LIMIT}`,
    {
      pass_id: col.text,
      pass_number: col.int,
      kind: col.oneOf(MARKER_FINDING_KINDS),
      hash: col.text,
      detail: col.text,
    },
  );
  return rows;
}

/** The chain page's section: the first findings in chain order, and how many there are. */
export async function listMarkerFindings(chainId: string): Promise<{ total: number; items: IntegrityFinding[] }> {
  const db = await getReadDb();
  const [items, counted] = await Promise.all([
    getMarkerFindings(chainId, db),
    queryRows(db, sql`select count(*)::int as n from marker_findings where chain_id = ${chainId}`, { n: col.int }),
  ]);
  return { total: counted[0]?.n ?? items.length, items };
}

/** The overview's marker findings: found since `since` (all time when null), through marker_findings_found_idx. */
export async function getMarkerFindingCounts(since: Date | null): Promise<MarkerFindingCounts> {
  const rows = await queryRows(
    await getReadDb(),
    sql`select kind, count(*)::int as n, count(distinct chain_id)::int as chains,
          (select count(distinct chain_id) from marker_findings
            where ${since ? sql`found_at >= ${since.toISOString()}::timestamptz` : sql`true`})::int as all_chains
        from marker_findings
        where ${since ? sql`found_at >= ${since.toISOString()}::timestamptz` : sql`true`}
        group by kind`,
    { kind: col.text, n: col.int, chains: col.int, all_chains: col.int },
  );
  const active = await queryRows(
    await getReadDb(),
    sql`select count(*)::int as n from chains where marker_finding_count > 0
        and ${since ? sql`last_activity_at >= ${since.toISOString()}::timestamptz` : sql`true`}`,
    { n: col.int },
  );
  const by_kind = Object.fromEntries(MARKER_FINDING_KINDS.map((k) => [k, 0])) as Record<MarkerFindingKind, number>;
  for (const r of rows)
    if ((MARKER_FINDING_KINDS as readonly string[]).includes(r.kind)) by_kind[r.kind as MarkerFindingKind] = r.n;
  return { by_kind, chains: rows[0]?.all_chains ?? 0, active_chains: active[0]?.n ?? 0 };
}
