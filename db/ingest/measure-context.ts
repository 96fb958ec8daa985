// What measuring a batch of receipts needs from the database (docs/measurement.md, "Measured on
// ingest"): each chain's source, the content of receipts that name a cached original instead
// of carrying it, and the cached originals that CCR markers in the content name. Read in the
// ingest's transaction, so a batch is measured against one moment's store (a measurement made
// ahead of it, from an earlier read, is taken up only when its task is the same); the store's
// retrieval counts and recency are left alone (measuring is not a retrieval). Only the default
// tenant's originals count: those are the agents' own (another tenant is a cache client's).
// And only for a caller who may read originals (docs/access.md, "Derived data"): whatever a
// measurement takes from an original shows in its answer, as texts, counts or a verdict.
import "server-only";
import { sql } from "drizzle-orm";
import { col, queryRows } from "../sql";
import type { Executor } from "../types";
import { sha256Hex } from "@/lib/guard/hash";
import { MARKER_HASH } from "@/lib/measure/markers";
import type { PassReceipt } from "@/lib/schemas/passes";

/** What the lookups read of a receipt; a check of a candidate pass (app/mcp/tools.ts) has no more. */
type MeasuredReceipt = Pick<
  PassReceipt,
  "chain_id" | "pass_id" | "pass_number" | "input_content" | "input_content_hash" | "content" | "current_content_hash"
>;

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
const sha256Key = (hash: string | null | undefined) =>
  hash != null && SHA256_HEX.test(hash) ? hash.toLowerCase() : null;

/** A chain's source as the batch states it or the database holds it. */
interface Source {
  text: string;
  /** Where it came from, and whether the batch must store it. */
  origin: "input_content" | "original";
  passId: string;
  stored: boolean;
  /** The pass number it is the input of: the lowest wins. */
  at: number;
}

export interface MeasureInputs {
  /** The chain's source, when known. */
  sourceOf(chainId: string): string | undefined;
  /**
   * Whether the chain's source came with this batch (a first pass's input_content): the
   * caller's own text. A source stored by an earlier request may be someone else's.
   */
  sourceSentNow(chainId: string): boolean;
  /** The content of a receipt that carries none but names a cached original by its full SHA-256. */
  contentOf(receipt: MeasuredReceipt): string | undefined;
}

const NOTHING: MeasureInputs = {
  sourceOf: () => undefined,
  sourceSentNow: () => false,
  contentOf: () => undefined,
};

/**
 * The cached originals one caller's measurements may consult: the default tenant's live ones
 * for a caller who may read originals; for any other, none, and no chain source copied from
 * one, so its passes are measured as if nothing were cached. A measurement that consulted an
 * original it may not read would answer, in its counts and scores alone, whether a guess in
 * the receipt is what the original says.
 */
export interface ReadableOriginals {
  /** Texts by full SHA-256. */
  byHash(tx: Executor, hashes: readonly string[]): Promise<Map<string, string>>;
  /** Texts by the key a CCR marker names. */
  byMarker(tx: Executor, keys: readonly string[]): Promise<Map<string, string>>;
  /** Whether a chain's source that was copied from a cached original counts. */
  copies: boolean;
}

export function readableOriginals(readsOriginals: boolean): ReadableOriginals {
  if (readsOriginals) return { byHash: originalsByHash, byMarker: originalsByMarker, copies: true };
  return { byHash: async () => new Map(), byMarker: async () => new Map(), copies: false };
}

/**
 * The first pass of a chain as far as its source goes: pass number 1, or 0 for chains counted
 * from 0. A receipt of a later pass never sets the source.
 */
const isFirstPass = (r: MeasuredReceipt) => r.pass_number <= 1;

/**
 * An original a measurement may read, in table `alias`: the default tenant's (the agents' own),
 * live, with its text, not expired. Ingest, re-measuring (db/queries/remeasure.ts) and the
 * lookups below read originals by this one condition.
 */
export const measurableOriginal = (alias: string) =>
  sql.raw(
    `${alias}.tenant = '' and ${alias}.status = 'live' and ${alias}.original is not null and (${alias}.expires_at is null or ${alias}.expires_at > now())`,
  );

/** Live originals by full SHA-256, texts only. */
async function originalsByHash(tx: Executor, hashes: readonly string[]): Promise<Map<string, string>> {
  if (hashes.length === 0) return new Map();
  const rows = await queryRows(
    tx,
    sql`select hash, original from originals
        where hash in (select json_array_elements_text(${JSON.stringify([...new Set(hashes)])}::json))
          and ${measurableOriginal("originals")}`,
    { hash: col.text, original: col.text },
  );
  return new Map(rows.map((r) => [r.hash, r.original]));
}

/**
 * The texts of the originals CCR markers name (12 to 64 hex: a prefix of the SHA-256, or of the
 * MD5 / BLAKE3 key Headroom's other compressors use). A key that names several originals is
 * ambiguous, as the retrieve route says, and names none here.
 */
async function originalsByMarker(tx: Executor, keys: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(keys)].filter((k) => MARKER_HASH.test(k));
  if (unique.length === 0) return new Map();
  // One indexable range per key and key kind (db/queries/originals/shared.ts `startsWith`).
  const parts = unique.map(
    (k) => sql`(select ${k}::text as key, hash, original from originals
      where ((hash ~>=~ ${k} and hash ~<~ ${`${k}g`}) or (alt_hash is not null and alt_hash ~>=~ ${k} and alt_hash ~<~ ${`${k}g`}))
        and ${measurableOriginal("originals")}
      limit 2)`,
  );
  const rows = await queryRows(tx, sql.join(parts, sql` union all `), {
    key: col.text,
    hash: col.text,
    original: col.text,
  });
  const byKey = new Map<string, { original: string; count: number }>();
  for (const r of rows) {
    const seen = byKey.get(r.key);
    byKey.set(r.key, { original: r.original, count: (seen?.count ?? 0) + 1 });
  }
  return new Map([...byKey].flatMap(([k, v]) => (v.count === 1 ? [[k, v.original] as const] : [])));
}

/**
 * Loads what measuring `receipts` needs, from the originals `readable` lets the caller's
 * measurements consult, and stores the sources this batch makes known (`chain_sources`, once
 * per chain: a source already stored is kept) unless `storeSources` is false (the ingest's
 * measurements made ahead of its transaction: judge-passes.ts `measureAhead`). Chains with no
 * receipt that has or names content are not looked up at all.
 */
export async function loadMeasureInputs(
  tx: Executor,
  receipts: readonly MeasuredReceipt[],
  readable: ReadableOriginals,
  storeSources = true,
): Promise<MeasureInputs> {
  const sources = new Map<string, Source>();
  for (const r of receipts) {
    if (r.input_content == null || !isFirstPass(r)) continue;
    const known = sources.get(r.chain_id);
    if (!known || r.pass_number < known.at)
      sources.set(r.chain_id, {
        text: r.input_content,
        origin: "input_content",
        passId: r.pass_id,
        stored: false,
        at: r.pass_number,
      });
  }
  const wanted = new Set<string>();
  for (const r of receipts) if (r.content != null || sha256Key(r.current_content_hash)) wanted.add(r.chain_id);
  if (wanted.size === 0) return NOTHING;

  const lookup = [...wanted].filter((c) => !sources.has(c));
  const looked = new Set(lookup);
  if (lookup.length > 0) {
    // A stored source, or else the input hash of the chain's stored first pass.
    const rows = await queryRows(
      tx,
      sql`select c.chain_id, s.source, s.origin, coalesce(s.pass_id, p.pass_id) as pass_id, p.input_content_hash as input
          from json_array_elements_text(${JSON.stringify(lookup)}::json) as c(chain_id)
          left join chain_sources s on s.chain_id = c.chain_id
          left join lateral (
            select pass_id, input_content_hash from passes
            where s.chain_id is null and chain_id = c.chain_id and pass_number <= 1
            order by pass_number, id limit 1
          ) p on true`,
      {
        chain_id: col.text,
        source: col.text.nullable(),
        origin: col.text.nullable(),
        pass_id: col.text.nullable(),
        input: col.text.nullable(),
      },
    );
    const inputHash = new Map<string, { hash: string; passId: string; at: number }>();
    for (const row of rows) {
      // A copy of an original the caller may not read is no source for its passes.
      if (row.origin === "original" && !readable.copies) continue;
      if (row.source !== null) {
        sources.set(row.chain_id, {
          text: row.source,
          origin: "input_content",
          passId: row.pass_id ?? "",
          stored: true,
          at: 0,
        });
        continue;
      }
      const hash = sha256Key(row.input);
      if (hash && row.pass_id) inputHash.set(row.chain_id, { hash, passId: row.pass_id, at: Infinity });
    }
    // A first pass in this batch names its input by hash (it sent no input_content).
    for (const r of receipts) {
      const hash = sha256Key(r.input_content_hash);
      const known = inputHash.get(r.chain_id);
      if (
        hash &&
        isFirstPass(r) &&
        looked.has(r.chain_id) &&
        !sources.has(r.chain_id) &&
        !(known && known.at <= r.pass_number)
      )
        inputHash.set(r.chain_id, { hash, passId: r.pass_id, at: r.pass_number });
    }
    // Both kinds of original in one read: the sources named by hash, and the contents named
    // by hash of receipts whose chain may have a source.
    const hashes = [...inputHash.values()].map((h) => h.hash);
    for (const r of receipts) {
      const hash = r.content == null ? sha256Key(r.current_content_hash) : null;
      if (hash && (sources.has(r.chain_id) || inputHash.has(r.chain_id))) hashes.push(hash);
    }
    const found = await readable.byHash(tx, hashes);
    for (const [chainId, { hash, passId }] of inputHash) {
      const text = found.get(hash);
      if (text !== undefined) sources.set(chainId, { text, origin: "original", passId, stored: false, at: 0 });
    }
    return finish(tx, receipts, sources, readable, found, storeSources);
  }
  return finish(tx, receipts, sources, readable, null, storeSources);
}

async function finish(
  tx: Executor,
  receipts: readonly MeasuredReceipt[],
  sources: Map<string, Source>,
  readable: ReadableOriginals,
  found: Map<string, string> | null,
  storeSources: boolean,
): Promise<MeasureInputs> {
  let contents = found;
  if (contents === null) {
    const hashes: string[] = [];
    for (const r of receipts) {
      const hash = r.content == null ? sha256Key(r.current_content_hash) : null;
      if (hash && sources.has(r.chain_id)) hashes.push(hash);
    }
    contents = await readable.byHash(tx, hashes);
  }
  // In chain order: two batches storing sources of the same chains take their keys in one order,
  // so they queue rather than deadlock.
  const fresh = [...sources].filter(([, s]) => !s.stored).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (storeSources && fresh.length > 0) {
    const rows = fresh.map(([chain_id, s]) => ({
      chain_id,
      source: s.text,
      sha256: sha256Hex(s.text),
      size_bytes: Buffer.byteLength(s.text, "utf8"),
      origin: s.origin,
      pass_id: s.passId,
    }));
    // Once per chain: the first source stored stays (a retry, or a first pass sent again, writes nothing).
    await tx.execute(sql`
      insert into chain_sources (chain_id, source, sha256, size_bytes, origin, pass_id)
      select chain_id, source, sha256, size_bytes, origin, pass_id
      from json_to_recordset(${JSON.stringify(rows)}::json)
        as s(chain_id text, source text, sha256 text, size_bytes bigint, origin text, pass_id text)
      on conflict (chain_id) do nothing`);
  }
  const byHash = contents;
  return {
    sourceOf: (chainId) => sources.get(chainId)?.text,
    sourceSentNow: (chainId) => {
      const source = sources.get(chainId);
      return source !== undefined && !source.stored && source.origin === "input_content";
    },
    contentOf: (r) => {
      const hash = r.content == null ? sha256Key(r.current_content_hash) : null;
      return hash ? byHash.get(hash) : undefined;
    },
  };
}
