// DATABASE_READ_URL against a real streaming replica (scripts/replica-up.sh makes one and
// prints TEST_REPLICA_URL). With the replica's replay paused, the dashboard's reads must
// show the replica's (stale) state while ingest, policy saves and the verdicts they decide
// go to the primary; once replay resumes, the reads catch up. Needs TEST_DATABASE_URL and
// TEST_REPLICA_URL (a replica of that server).
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeDb, openDatabase, setHandle } from "@/db/index";
import { listChains } from "@/db/queries/chains";
import { getOverviewFigures } from "@/db/queries/overview";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { PUT as putPolicy } from "@/app/api/v1/policies/[content_class]/route";
import { jsonRequest, params } from "../support/database";
import { dropScratchDatabase } from "../support/scratch-database";

const primaryAdmin = process.env.TEST_DATABASE_URL ?? "";
const replicaAdmin = process.env.TEST_REPLICA_URL ?? "";

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const receipt = (chainId: string, n: number, size: number) => ({
  chain_id: chainId,
  pass_id: `${chainId}.p${n}`,
  pass_number: n,
  current_content_hash: `${chainId}:${n}`,
  current_size_bytes: size,
  is_parseable: true,
  schema_valid: true,
  semantic_density_score: 0.9,
  content_class: "replica",
});

describe.skipIf(!primaryAdmin || !replicaAdmin)("reads from a streaming replica", () => {
  let name: string;
  let replicaControl: postgres.Sql;
  let replicaDb: postgres.Sql;

  beforeAll(async () => {
    name = `floorline_replica_${randomBytes(5).toString("hex")}`;
    const admin = postgres(primaryAdmin, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    // Migrates the primary; the replica receives the schema by replication.
    setHandle(openDatabase({ url: withDatabase(primaryAdmin, name), readUrl: withDatabase(replicaAdmin, name) }));
    await postPasses(jsonRequest("/api/v1/passes", { body: receipt("before-pause", 1, 5_000) }), params({}));
    // Pause and resume act on the whole replica; the grant lives in the admin URL's database.
    replicaControl = postgres(replicaAdmin, { max: 1, onnotice: () => {} });
    replicaDb = postgres(withDatabase(replicaAdmin, name), { max: 1, onnotice: () => {} });
    const caughtUp = await waitFor(
      async () => (await replicaDb`select count(*)::int as n from chains where chain_id = 'before-pause'`)[0]?.n === 1,
      60_000,
    );
    expect(caughtUp, "the replica received the database").toBe(true);
  }, 120_000);

  afterAll(async () => {
    await replicaControl?.unsafe("select pg_wal_replay_resume()").catch(() => {});
    await replicaControl?.end();
    await replicaDb?.end();
    await closeDb();
    await dropScratchDatabase(primaryAdmin, name);
  });

  it("serves dashboard reads from the replica and decides verdicts on the primary", async () => {
    await replicaControl.unsafe("select pg_wal_replay_pause()");
    try {
      expect(
        await waitFor(async () => (await replicaControl`select pg_is_wal_replay_paused() as p`)[0]?.p === true, 10_000),
      ).toBe(true);

      // Written on the primary while the replica stands still.
      const policy = await putPolicy(
        jsonRequest("/api/v1/policies/replica", {
          method: "PUT",
          body: { min_size_bytes: 1_000, min_semantic_density: 0.1, max_pass_number: 50 },
        }),
        params({ content_class: "replica" }),
      );
      expect(policy.status).toBe(201);
      const ingested = await postPasses(
        jsonRequest("/api/v1/passes", { body: receipt("during-pause", 2, 500) }),
        params({}),
      );
      expect(ingested.status).toBe(201);
      // The verdict used the policy saved a moment ago: read on the primary, not the paused replica.
      expect(await ingested.json()).toMatchObject({ policy_version: 1, verdict: "COLLAPSE_IMMINENT" });

      // The dashboard's list and figures still show the replica's state.
      const listed = await listChains({ sort: "last_activity", order: "desc", limit: 50 });
      expect(listed.items.map((c) => c.chain_id)).toEqual(["before-pause"]);
      expect((await getOverviewFigures(null)).chains).toBe(1);
      const onReplica = await replicaDb<{ application_name: string }[]>`
        select distinct application_name from pg_stat_activity where datname = ${name} and application_name like 'floorline%'`;
      expect(onReplica.map((r) => r.application_name)).toEqual(["floorline-read"]);
    } finally {
      await replicaControl.unsafe("select pg_wal_replay_resume()");
    }

    expect(
      await waitFor(
        async () =>
          (await listChains({ sort: "last_activity", order: "desc", limit: 50 })).items.some(
            (c) => c.chain_id === "during-pause",
          ),
        30_000,
      ),
    ).toBe(true);
    expect((await getOverviewFigures(null)).chains).toBe(2);
  });
});
