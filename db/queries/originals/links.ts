// Originals linked to chains: which pass inputs, outputs and restore boundaries have a
// stored original, and which passes name an original.
import "server-only";
import { sql } from "drizzle-orm";
import { queryRows } from "../../sql";
import { getReadDb } from "../../index";
import type { OriginalStatus } from "@/lib/schemas/originals";
import { FULL_HASH_LENGTH, displayStatus, parseHashKey } from "@/lib/originals/rules";
import type { MatchingPass, OriginalLink, RestoreLinks, RestoreMatch, SourcePass } from "@/lib/originals/types";
import { type OriginalsOptions, type RawRow, num, date, must } from "./shared";

function toLink(r: RawRow, now: Date): OriginalLink {
  const hash = r.hash as string;
  return {
    hash,
    status: displayStatus(r.status as OriginalStatus, date(r.expires_at), now),
    size_bytes: must(num(r.size_bytes)),
    href: `/originals/${hash}`,
  };
}

/**
 * Which of these content hashes (pass input or output hashes, as the passes recorded them)
 * have a stored original in the default tenant (where agents' own originals live), and whether it is live, evicted or expired. Keys of the result
 * are the hashes as given; hashes that are not 12-64 hex characters, unknown hashes and
 * ambiguous prefixes are simply absent.
 */
export async function listOriginalLinksByHash(
  hashes: readonly (string | null | undefined)[],
  options: OriginalsOptions = {},
): Promise<Map<string, OriginalLink>> {
  const now = options.now ?? new Date();
  const keys = new Map<string, string>();
  for (const given of hashes) {
    if (!given) continue;
    const parsed = parseHashKey(given);
    if (parsed.ok) keys.set(given, parsed.key);
  }
  const links = new Map<string, OriginalLink>();
  if (keys.size === 0) return links;
  const full = [...new Set([...keys.values()].filter((k) => k.length === FULL_HASH_LENGTH))];
  const prefixes = [...new Set([...keys.values()].filter((k) => k.length < FULL_HASH_LENGTH))];
  const db = await getReadDb();
  const rows = await queryRows<RawRow & { key: string }>(
    db,
    sql`
      select o.hash, o.status, o.expires_at, o.size_bytes, k.key
      from json_array_elements_text(${JSON.stringify(full)}::json) as k(key)
      join originals o on o.tenant = '' and o.hash = k.key
      union all
      select o.hash, o.status, o.expires_at, o.size_bytes, k.key
      from json_array_elements_text(${JSON.stringify(prefixes)}::json) as k(key)
      join originals o on o.tenant = '' and o.hash ~>=~ k.key and o.hash ~<~ (k.key || 'g')`,
  );
  const byKey = new Map<string, RawRow[]>();
  for (const r of rows) byKey.set(r.key, [...(byKey.get(r.key) ?? []), r]);
  for (const [given, key] of keys) {
    const [match, ...others] = byKey.get(key) ?? [];
    if (match && others.length === 0) links.set(given, toLink(match, now));
  }
  return links;
}

/**
 * The originals that restore boundaries bring back, for the given restored pass ids only
 * (a chain page must not read every pass of a long chain). Preference order as in
 * `RestoreLinks`.
 */
export async function listRestoreLinks(
  chainId: string,
  passIds: readonly string[],
  options: OriginalsOptions = {},
): Promise<RestoreLinks> {
  if (passIds.length === 0) return {};
  const now = options.now ?? new Date();
  const db = await getReadDb();
  const ids = JSON.stringify([...new Set(passIds)]);
  const [passRows, recordedRows] = await Promise.all([
    queryRows<{ pass_id: string; input_content_hash: string | null; current_content_hash: string }>(
      db,
      sql`select pass_id, input_content_hash, current_content_hash from passes
          where chain_id = ${chainId} and pass_id in (select json_array_elements_text(${ids}::json))`,
    ),
    queryRows<RawRow>(
      db,
      sql`select hash, status, expires_at, size_bytes, pass_id from originals
          where tenant = '' and chain_id = ${chainId} and pass_id in (select json_array_elements_text(${ids}::json))
          order by created_at desc, hash`,
    ),
  ]);
  const byHash = await listOriginalLinksByHash(
    passRows.flatMap((p) => [p.input_content_hash, p.current_content_hash]),
    { now },
  );
  const hashesOf = new Map(passRows.map((p) => [p.pass_id, p]));
  const recorded = new Map<string, OriginalLink>();
  for (const r of recordedRows)
    if (r.pass_id && !recorded.has(r.pass_id as string)) recorded.set(r.pass_id as string, toLink(r, now));
  const restores: RestoreLinks = {};
  for (const passId of new Set(passIds)) {
    const pass = hashesOf.get(passId);
    const found: [RestoreMatch, OriginalLink | null | undefined][] = [
      ["output_hash", pass && byHash.get(pass.current_content_hash)],
      ["recorded_pass", recorded.get(passId)],
      ["input_hash", pass?.input_content_hash ? byHash.get(pass.input_content_hash) : undefined],
    ];
    for (const [match, link] of found) {
      if (!link) continue;
      restores[passId] = { ...link, match };
      break;
    }
  }
  return restores;
}

/** Passes whose recorded input or output hash is this original's (read-only on passes). */
export async function listPassesForOriginal(hash: string, limit = 100): Promise<MatchingPass[]> {
  const db = await getReadDb();
  const rows = await queryRows<RawRow>(
    db,
    sql`
      select chain_id, pass_id, pass_number, verdict, 'input' as relation from passes where input_content_hash = ${hash}
      union all
      select chain_id, pass_id, pass_number, verdict, 'output' as relation from passes where current_content_hash = ${hash}
      order by chain_id, pass_number, relation
      limit ${limit}`,
  );
  return rows.map((r) => ({
    chain_id: r.chain_id as string,
    pass_id: r.pass_id as string,
    pass_number: must(num(r.pass_number)),
    relation: r.relation as "input" | "output",
    verdict: r.verdict as string,
  }));
}

/** The receipt of the pass an original says it came from (its `chain_id` and `pass_id`), if it has arrived. */
export async function getRecordedPass(chainId: string, passId: string): Promise<SourcePass | null> {
  const db = await getReadDb();
  const [row] = await queryRows<RawRow>(
    db,
    sql`select chain_id, pass_id, pass_number, verdict, input_content_hash, current_content_hash
      from passes where chain_id = ${chainId} and pass_id = ${passId}`,
  );
  return row
    ? {
        chain_id: row.chain_id as string,
        pass_id: row.pass_id as string,
        pass_number: must(num(row.pass_number)),
        verdict: row.verdict as string,
        input_content_hash: (row.input_content_hash as string | null) ?? null,
        current_content_hash: row.current_content_hash as string,
      }
    : null;
}
