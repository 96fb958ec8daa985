// Originals linked to chains: which pass inputs, outputs and restore boundaries have a
// stored original, and which passes name an original.
import "server-only";
import { and, eq, sql } from "drizzle-orm";
import { col, queryRows, type RowOf } from "../../sql";
import { passes } from "../../schema";
import { getReadDb } from "../../index";
import { ORIGINAL_STATUSES } from "@/lib/schemas/originals";
import { FULL_HASH_LENGTH, displayStatus, parseHashKey } from "@/lib/originals/rules";
import type { MatchingPass, OriginalLink, RestoreLinks, RestoreMatch, SourcePass } from "@/lib/originals/types";
import type { OriginalsOptions } from "./shared";

const LINK_ROW = {
  hash: col.text,
  status: col.oneOf(ORIGINAL_STATUSES),
  expires_at: col.date.nullable(),
  size_bytes: col.int,
};

function toLink(r: RowOf<typeof LINK_ROW>, now: Date): OriginalLink {
  return {
    hash: r.hash,
    status: displayStatus(r.status, r.expires_at, now),
    size_bytes: r.size_bytes,
    href: `/originals/${r.hash}`,
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
  const rows = await queryRows(
    db,
    sql`
      select o.hash, o.status, o.expires_at, o.size_bytes, k.key
      from json_array_elements_text(${JSON.stringify(full)}::json) as k(key)
      join originals o on o.tenant = '' and o.hash = k.key
      union all
      select o.hash, o.status, o.expires_at, o.size_bytes, k.key
      from json_array_elements_text(${JSON.stringify(prefixes)}::json) as k(key)
      join originals o on o.tenant = '' and o.hash ~>=~ k.key and o.hash ~<~ (k.key || 'g')`,
    { ...LINK_ROW, key: col.text },
  );
  const byKey = new Map<string, (typeof rows)[number][]>();
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
    queryRows(
      db,
      sql`select pass_id, input_content_hash, current_content_hash from passes
          where chain_id = ${chainId} and pass_id in (select json_array_elements_text(${ids}::json))`,
      { pass_id: col.text, input_content_hash: col.text.nullable(), current_content_hash: col.text },
    ),
    queryRows(
      db,
      sql`select hash, status, expires_at, size_bytes, pass_id from originals
          where tenant = '' and chain_id = ${chainId} and pass_id in (select json_array_elements_text(${ids}::json))
          order by created_at desc, hash`,
      { ...LINK_ROW, pass_id: col.text },
    ),
  ]);
  const byHash = await listOriginalLinksByHash(
    passRows.flatMap((p) => [p.input_content_hash, p.current_content_hash]),
    { now },
  );
  const hashesOf = new Map(passRows.map((p) => [p.pass_id, p]));
  const recorded = new Map<string, OriginalLink>();
  for (const r of recordedRows) if (!recorded.has(r.pass_id)) recorded.set(r.pass_id, toLink(r, now));
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
  return queryRows(
    db,
    sql`
      select chain_id, pass_id, pass_number, verdict, 'input' as relation from passes where input_content_hash = ${hash}
      union all
      select chain_id, pass_id, pass_number, verdict, 'output' as relation from passes where current_content_hash = ${hash}
      order by chain_id, pass_number, relation
      limit ${limit}`,
    {
      chain_id: col.text,
      pass_id: col.text,
      pass_number: col.int,
      verdict: col.text,
      relation: col.oneOf(["input", "output"]),
    },
  );
}

/** The receipt of the pass an original says it came from (its `chain_id` and `pass_id`), if it has arrived. */
export async function getRecordedPass(chainId: string, passId: string): Promise<SourcePass | null> {
  const db = await getReadDb();
  const [row] = await db
    .select({
      chain_id: passes.chainId,
      pass_id: passes.passId,
      pass_number: passes.passNumber,
      verdict: passes.verdict,
      input_content_hash: passes.inputContentHash,
      current_content_hash: passes.currentContentHash,
    })
    .from(passes)
    .where(and(eq(passes.chainId, chainId), eq(passes.passId, passId)));
  return row ?? null;
}
