import "server-only";
import { desc, eq, gt, sql } from "drizzle-orm";
import { getDb, getReadDb } from "../index";
import { onlyRow } from "../sql";
import type { Executor } from "../types";
import { keysetPage } from "../keyset";
import { policies } from "../schema";
import { defaultPolicyFor, type PolicyInForce } from "@/lib/guard/policy";
import type { PolicyBody } from "@/lib/schemas/policies";
import { DEFAULT_DENSITY_SOURCE, type DensitySource } from "@/lib/content-checks/formats";

type PolicyRow = typeof policies.$inferSelect;

/** A policy body as callers write it; the format defaults like the wire schema's. */
type PolicyWrite = Omit<PolicyBody, "format" | "density_source"> &
  Partial<Pick<PolicyBody, "format" | "density_source">>;

function toPolicy(row: PolicyRow): PolicyInForce {
  return {
    content_class: row.contentClass,
    version: row.version,
    min_size_bytes: row.minSizeBytes,
    min_semantic_density: row.minSemanticDensity,
    max_pass_number: row.maxPassNumber,
    required_fields: row.requiredFields,
    format: row.format,
    decoded_format: row.decodedFormat ?? null,
    density_source: row.densitySource,
    description: row.description,
    retention_days: row.retentionDays ?? null,
    min_canary_retention: row.minCanaryRetention ?? null,
    note: row.note,
    created_at: row.createdAt.toISOString(),
    created_by: row.createdBy,
  };
}

/** The policy in force for each class asked for; classes with none get the conservative default. */
export async function getPoliciesInForce(
  classes: readonly string[],
  executor?: Executor,
): Promise<Map<string, PolicyInForce>> {
  const db = executor ?? (await getDb());
  const unique = [...new Set(classes)];
  const found = new Map<string, PolicyInForce>();
  if (unique.length > 0) {
    const rows = await db
      .selectDistinctOn([policies.contentClass])
      .from(policies)
      .where(sql`${policies.contentClass} in ${unique}`)
      .orderBy(policies.contentClass, desc(policies.version));
    for (const row of rows) found.set(row.contentClass, toPolicy(row));
  }
  for (const c of unique) if (!found.has(c)) found.set(c, defaultPolicyFor(c));
  return found;
}

export async function getPolicy(contentClass: string): Promise<PolicyInForce> {
  const policy = (await getPoliciesInForce([contentClass])).get(contentClass);
  // getPoliciesInForce answers every class it is asked, with the default when none is stored.
  if (!policy) throw new Error(`no policy in force for ${JSON.stringify(contentClass)}`);
  return policy;
}

/** The current policy of every class that has one. */
export async function listPolicies(): Promise<PolicyInForce[]> {
  const db = await getReadDb();
  const rows = await db
    .selectDistinctOn([policies.contentClass])
    .from(policies)
    .orderBy(policies.contentClass, desc(policies.version));
  return rows.map(toPolicy);
}

/** One keyset page of the classes' current policies, in content-class order; `next` is the last class shown when more follow. */
export async function listPolicyPage(query: {
  limit: number;
  after?: string;
}): Promise<{ items: PolicyInForce[]; next: string | null }> {
  const db = await getReadDb();
  const page = await keysetPage({
    limit: query.limit,
    after: query.after,
    keyOf: (r: typeof policies.$inferSelect) => r.contentClass,
    neighbours: "none",
    // Forward only: the API pages on, never back.
    read: (from, _forward, limit) =>
      db
        .selectDistinctOn([policies.contentClass])
        .from(policies)
        .where(from === undefined ? undefined : gt(policies.contentClass, from))
        .orderBy(policies.contentClass, desc(policies.version))
        .limit(limit),
  });
  return { items: page.items.map(toPolicy), next: page.next };
}

export async function listPolicyVersions(contentClass: string): Promise<PolicyInForce[]> {
  const db = await getReadDb();
  const rows = await db
    .select()
    .from(policies)
    .where(eq(policies.contentClass, contentClass))
    .orderBy(desc(policies.version));
  return rows.map(toPolicy);
}

/** The density source a write leaves in force: absent keeps the current one (client for a new class). */
function densitySourceOf(current: PolicyInForce | null, body: PolicyWrite): DensitySource {
  return body.density_source ?? current?.density_source ?? DEFAULT_DENSITY_SOURCE;
}

/** The retention a write leaves in force: absent keeps the current one. */
function retentionOf(current: PolicyInForce | null, body: PolicyWrite): number | null {
  return body.retention_days === undefined ? (current?.retention_days ?? null) : body.retention_days;
}

/** The canary floor a write leaves in force: absent keeps the current one. */
function canaryFloorOf(current: PolicyInForce | null, body: PolicyWrite): number | null {
  return body.min_canary_retention === undefined ? (current?.min_canary_retention ?? null) : body.min_canary_retention;
}

function sameFloor(current: PolicyInForce, body: PolicyWrite): boolean {
  return (
    current.retention_days === retentionOf(current, body) &&
    current.min_canary_retention === canaryFloorOf(current, body) &&
    current.min_size_bytes === body.min_size_bytes &&
    current.min_semantic_density === body.min_semantic_density &&
    current.max_pass_number === body.max_pass_number &&
    JSON.stringify(current.required_fields) === JSON.stringify(body.required_fields) &&
    current.format === (body.format ?? "any") &&
    current.decoded_format === (body.decoded_format ?? null) &&
    current.density_source === densitySourceOf(current, body) &&
    (current.description ?? null) === (body.description ?? null)
  );
}

/** A new version for the class, unless the body repeats the version in force (then nothing is written). */
export async function updatePolicy(
  contentClass: string,
  body: PolicyWrite,
  createdBy: string | null = null,
): Promise<{ policy: PolicyInForce; created: boolean }> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    // Serialise writers of one class so versions stay dense and an identical retry is seen.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${"policy:" + contentClass}))`);
    const [latest] = await tx
      .select()
      .from(policies)
      .where(eq(policies.contentClass, contentClass))
      .orderBy(desc(policies.version))
      .limit(1);
    const inForce = latest ? toPolicy(latest) : null;
    if (inForce && sameFloor(inForce, body)) return { policy: inForce, created: false };
    const inserted = await tx
      .insert(policies)
      .values({
        contentClass,
        version: (latest?.version ?? 0) + 1,
        minSizeBytes: body.min_size_bytes,
        minSemanticDensity: body.min_semantic_density,
        maxPassNumber: body.max_pass_number,
        requiredFields: body.required_fields,
        format: body.format ?? "any",
        decodedFormat: body.decoded_format ?? null,
        densitySource: densitySourceOf(inForce, body),
        description: body.description ?? null,
        retentionDays: retentionOf(inForce, body),
        minCanaryRetention: canaryFloorOf(inForce, body),
        note: body.note ?? null,
        createdBy,
      })
      .returning();
    return { policy: toPolicy(onlyRow(inserted)), created: true };
  });
}
