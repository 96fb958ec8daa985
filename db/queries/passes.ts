import "server-only";
import { sql } from "drizzle-orm";
import { getDb, queryRows } from "../index";
import { getPoliciesInForce } from "./policies";
import { insertPassesWithSummaries, lockChains } from "./chain-summary";
import { ApiError } from "@/lib/errors";
import { evaluatePass } from "@/lib/guard/guard";
import { bodyDigest } from "@/lib/guard/canonical";
import type { PassReceipt, PassResult } from "@/lib/schemas/passes";

/** A receipt as the `passes` table stores it, with the server's verdict (column names). */
export interface PassRow {
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
  client_verdict: string | null;
  client_manifest_digest: string | null;
  verdict: string;
  directive: string;
  manifest_digest: string;
  policy_version: number;
  client_mismatch: boolean;
  body_digest: string;
  created_at: string;
}

// NUL cannot occur in a stored string (the wire schemas refuse it), so it separates the two
// parts unambiguously; cheaper than JSON for the several lookups per receipt.
const keyOf = (chainId: string, passId: string) => `${chainId}\u0000${passId}`;

function toResult(row: Pick<PassRow, keyof PassResult>): PassResult {
  return {
    chain_id: row.chain_id,
    pass_id: row.pass_id,
    verdict: row.verdict,
    directive: row.directive,
    manifest_digest: row.manifest_digest,
    policy_version: Number(row.policy_version),
    client_mismatch: row.client_mismatch,
  };
}

function conflict(index: number, receipt: PassReceipt): ApiError {
  return new ApiError(
    "idempotency_conflict",
    `Receipt ${index} reuses chain_id ${JSON.stringify(receipt.chain_id)} and pass_id ${JSON.stringify(receipt.pass_id)} with a different body.`,
    {
      issues: [
        {
          path: `receipts.${index}`,
          message: "a receipt with this chain_id and pass_id was already stored with different content",
        },
      ],
    },
  );
}

/**
 * Stores receipts with the server's verdict, all or nothing. A receipt already stored with
 * the same content returns its stored result (evaluated under the policy of its day) and
 * writes nothing; the same key with different content fails the whole batch with 409.
 */
export async function ingestPasses(
  receipts: readonly PassReceipt[],
): Promise<{ results: PassResult[]; created: number }> {
  const db = await getDb();
  const now = new Date().toISOString();

  // One row per key; a key repeated inside the batch must repeat the same content.
  const digests = receipts.map((r) => bodyDigest(r));
  const firstIndex = new Map<string, number>();
  receipts.forEach((r, i) => {
    const key = keyOf(r.chain_id, r.pass_id);
    const seen = firstIndex.get(key);
    if (seen === undefined) firstIndex.set(key, i);
    else if (digests[seen] !== digests[i]) throw conflict(i, r);
  });

  return db.transaction(async (tx) => {
    const chainIds = [...new Set(receipts.map((r) => r.chain_id))];
    await lockChains(tx, chainIds);
    const policyByClass = await getPoliciesInForce(
      receipts.map((r) => r.content_class),
      tx,
    );

    const rows: PassRow[] = [];
    for (const index of firstIndex.values()) {
      const r = receipts[index];
      const policy = policyByClass.get(r.content_class)!;
      const manifest = evaluatePass(r, policy);
      const clientVerdict = r.verdict ?? null;
      const clientDigest = r.manifest_digest ?? null;
      rows.push({
        chain_id: r.chain_id,
        pass_id: r.pass_id,
        pass_number: r.pass_number,
        input_content_hash: r.input_content_hash ?? null,
        current_content_hash: r.current_content_hash,
        current_size_bytes: r.current_size_bytes,
        is_parseable: r.is_parseable,
        schema_valid: r.schema_valid,
        semantic_density_score: r.semantic_density_score,
        content_class: r.content_class,
        metadata: r.metadata ?? null,
        client_verdict: clientVerdict,
        client_manifest_digest: clientDigest,
        ...manifest,
        policy_version: policy.version,
        client_mismatch:
          (clientVerdict !== null && clientVerdict !== manifest.verdict) ||
          (clientDigest !== null && clientDigest !== manifest.manifest_digest),
        body_digest: digests[index],
        created_at: r.created_at ?? now,
      });
    }

    // One statement for the whole batch, chain summaries included: the rows travel as a single
    // JSON parameter, which both drivers send as text and which is not bound by Postgres's
    // 65,535-parameter cap.
    const inserted = await insertPassesWithSummaries(
      tx,
      sql`
        insert into passes (
          chain_id, pass_id, pass_number, input_content_hash, current_content_hash, current_size_bytes,
          is_parseable, schema_valid, semantic_density_score, content_class, metadata, client_verdict,
          client_manifest_digest, verdict, directive, manifest_digest, policy_version, client_mismatch,
          body_digest, created_at
        )
        select
          chain_id, pass_id, pass_number, input_content_hash, current_content_hash, current_size_bytes,
          is_parseable, schema_valid, semantic_density_score, content_class, metadata, client_verdict,
          client_manifest_digest, verdict, directive, manifest_digest, policy_version, client_mismatch,
          body_digest, created_at
        from json_to_recordset(${JSON.stringify(rows)}::json) as r(
          chain_id text, pass_id text, pass_number bigint, input_content_hash text, current_content_hash text,
          current_size_bytes bigint, is_parseable boolean, schema_valid boolean, semantic_density_score double precision,
          content_class text, metadata jsonb, client_verdict text, client_manifest_digest text, verdict text,
          directive text, manifest_digest text, policy_version integer, client_mismatch boolean, body_digest text,
          created_at timestamptz
        )
        on conflict (chain_id, pass_id) do nothing
        returning *`,
    );

    const results = new Map<string, PassResult>();
    const insertedKeys = new Set(inserted.map((r) => keyOf(r.chain_id, r.pass_id)));
    for (const row of rows) {
      if (insertedKeys.has(keyOf(row.chain_id, row.pass_id)))
        results.set(keyOf(row.chain_id, row.pass_id), toResult(row));
    }

    const retried = rows.filter((row) => !insertedKeys.has(keyOf(row.chain_id, row.pass_id)));
    if (retried.length > 0) {
      const stored = await queryRows<PassRow>(
        tx,
        sql`
          select p.chain_id, p.pass_id, p.verdict, p.directive, p.manifest_digest, p.policy_version,
            p.client_mismatch, p.body_digest
          from passes p
          join json_to_recordset(${JSON.stringify(retried.map((r) => ({ chain_id: r.chain_id, pass_id: r.pass_id })))}::json)
            as k(chain_id text, pass_id text)
            on p.chain_id = k.chain_id and p.pass_id = k.pass_id`,
      );
      const digestByKey = new Map(rows.map((r) => [keyOf(r.chain_id, r.pass_id), r.body_digest]));
      for (const row of stored) {
        const key = keyOf(row.chain_id, row.pass_id);
        if (row.body_digest !== digestByKey.get(key)) {
          const index = firstIndex.get(key)!;
          throw conflict(index, receipts[index]);
        }
        results.set(key, toResult(row));
      }
    }

    return { results: receipts.map((r) => results.get(keyOf(r.chain_id, r.pass_id))!), created: inserted.length };
  });
}
