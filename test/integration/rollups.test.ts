// The overview reads roll-ups kept at ingest instead of counting chains and passes. After a
// random sequence of writes (in order, late, repeated and gapped passes, retries, conflicts,
// boundaries, chains changing class, times spread over days and into the future) the
// roll-ups must equal a recompute from the stored rows, and the overview's figures must
// equal counts taken straight from the tables, for any start of the range.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb, summariesSettled } from "@/db/index";
import { col, onlyRow, queryRows } from "@/db/sql";
import { ingestBoundaries } from "@/db/ingest/boundaries";
import {
  RECOMPUTE_CHAIN_ROLLUPS,
  RECOMPUTE_CHAIN_ROLLUPS_DAILY,
  RECOMPUTE_PASS_ROLLUPS,
  RECOMPUTE_PASS_ROLLUPS_DAILY,
} from "@/db/ingest/rollups";
import { ingestPasses } from "@/db/ingest/passes";
import { listClassStats } from "@/db/queries/chains";
import { getFirstActivity, getOverviewFigures, listCollapseRates } from "@/db/queries/overview";
import { chainStatusCondition } from "@/db/queries/chains";
import { OVERVIEW_FIGURE_STATUS } from "@/lib/chains/overview";
import { updatePolicy } from "@/db/queries/policies";
import { boundaryReceiptSchema } from "@/lib/schemas/boundaries";
import { passReceiptSchema, type PassReceipt } from "@/lib/schemas/passes";
import { rawRows } from "../support/raw-rows";
import { seededRandom } from "../support/random";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const CHAINS = Array.from({ length: 10 }, (_, i) => `roll-${i}`);
const CLASSES = ["roll", "roll", "default", "other"];
const HOUR = 3_600_000;

const KEYS = new Set(["hour", "day", "content_class", "verdict"]);

/** Rows of a roll-up as sorted JSON, all-zero rows left out (a chain moving on leaves its old hour at zero). */
async function rows(query: ReturnType<typeof sql>): Promise<string> {
  // As a page of this process reads them: once the summariser has folded what was stored.
  await summariesSettled();
  const db = await getDb();
  const found = await rawRows(db, query);
  const normalised = found.map((r) =>
    Object.fromEntries(
      Object.entries(r).map(([k, v]) => [
        k,
        k === "hour" || k === "day" ? new Date(v as string).toISOString() : String(v),
      ]),
    ),
  );
  const nonZero = normalised.filter((r) => Object.entries(r).some(([k, v]) => !KEYS.has(k) && v !== "0"));
  return JSON.stringify(nonZero.map((r) => JSON.stringify(r)).sort());
}

/**
 * The figures counted straight from the tables: chains active since the moment under each
 * chains-list status condition (what each figure opens), and passes received since it.
 */
async function countedFigures(since: Date | null): Promise<Record<string, number>> {
  await summariesSettled();
  const db = await getDb();
  const active = since ? sql`last_activity_at >= ${since.toISOString()}::timestamptz` : sql`true`;
  const inRange = since ? sql`p.created_at >= ${since.toISOString()}::timestamptz` : sql`true`;
  const figures = Object.entries(OVERVIEW_FIGURE_STATUS).map(([key, status]) =>
    status === null
      ? sql`(select count(*) from chains where ${active}) as ${sql.identifier(key)}`
      : sql`(select count(*) from chains where ${active} and ${chainStatusCondition(status)}) as ${sql.identifier(key)}`,
  );
  const spec = Object.fromEntries([...Object.keys(OVERVIEW_FIGURE_STATUS), "passes"].map((key) => [key, col.int]));
  return onlyRow(
    await queryRows(
      db,
      sql`select ${sql.join(figures, sql`, `)}, (select count(*) from passes p where ${inRange}) as passes`,
      spec,
    ),
  );
}

const SOURCE = "Release 3.9.0 (2026-05-02) adds Parquet export up to 4 GB and fixes #4412 in the scheduler.";
const FILLER = "The document discusses various topics.";

describe("overview roll-ups kept at ingest", () => {
  it.each([3, 17])("equal a recompute after random writes (seed %i)", async (seed) => {
    const rnd = seededRandom(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
    const sent = new Map<string, PassReceipt>();
    const nextNumber = new Map<string, number>();
    const base = Date.now() - 3 * 24 * HOUR;
    await updatePolicy("roll", {
      min_size_bytes: 100,
      min_semantic_density: 0.3,
      max_pass_number: 6,
      required_fields: [],
      // The chains of this class follow the measured verdict where there is one (effective_verdict).
      density_source: "measured",
    });

    // Chains an agent takes to a floor and answers there (a halt, a restore, an accept_loss):
    // guarded, until some of them get a pass after it.
    const saved: { chain: string; last: number; contentClass: string }[] = [];
    const savedPass = (chain: string, n: number, density: number, contentClass: string) =>
      passReceiptSchema.parse({
        chain_id: chain,
        pass_id: `${chain}-p${n}`,
        pass_number: n,
        current_content_hash: `${chain}-h${n}`,
        input_content_hash: n > 1 ? `${chain}-h${n - 1}` : undefined,
        current_size_bytes: 500,
        is_parseable: true,
        schema_valid: true,
        semantic_density_score: density,
        content_class: contentClass,
        created_at: new Date(base + Math.floor(rnd() * 4 * 24 * HOUR)).toISOString(),
      });

    for (let round = 0; round < 60; round++) {
      if (rnd() < 0.12) {
        if (saved.length > 0 && rnd() < 0.3) {
          // One more pass, past the floor the boundary answered: no longer guarded.
          const s = pick(saved);
          s.last++;
          await ingestPasses([savedPass(s.chain, s.last, 0.9, s.contentClass)]);
        } else {
          const chain = `roll-saved-${seed}-${round}`;
          const contentClass = pick(CLASSES);
          const last = 2 + Math.floor(rnd() * 3);
          await ingestPasses(
            Array.from({ length: last }, (_, i) => savedPass(chain, i + 1, i + 1 === last ? 0.1 : 0.9, contentClass)),
          );
          const strategy = pick(["halt", "restore", "accept_loss"] as const);
          await ingestBoundaries([
            boundaryReceiptSchema.parse({
              chain_id: chain,
              pass_number: last,
              strategy,
              reason: "floor",
              restore_pass_id: strategy === "restore" ? `${chain}-p${last - 1}` : undefined,
            }),
          ]);
          saved.push({ chain, last, contentClass });
        }
      } else if (rnd() < 0.15) {
        const items = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => {
          const chain = pick(CHAINS);
          // A restore names a pass the chain was sent: the pass after the boundary honours it or not.
          const restorable = [...sent.values()].filter((p) => p.chain_id === chain);
          const restored = restorable.length > 0 && rnd() < 0.6 ? pick(restorable) : null;
          // Otherwise a halt or an accept_loss, often at a pass the chain was sent: one at a floor
          // pass answers it (a guarded chain, unless the chain goes on past a floor).
          const at = restorable.length > 0 && rnd() < 0.6 ? pick(restorable).pass_number : Math.floor(rnd() * 8);
          return boundaryReceiptSchema.parse({
            chain_id: chain,
            pass_number: restored ? restored.pass_number + Math.floor(rnd() * 3) : at,
            ...(restored
              ? { strategy: "restore", restore_pass_id: restored.pass_id }
              : { strategy: pick(["halt", "accept_loss"] as const) }),
            reason: `r${seed}`,
          });
        });
        await ingestBoundaries(items).catch((e: { code?: string }) => {
          if (e.code !== "idempotency_conflict") throw e;
        });
      } else {
        const items: PassReceipt[] = [];
        for (let i = 1 + Math.floor(rnd() * 10); i > 0; i--) {
          const chain = pick(CHAINS);
          const inOrder = rnd() < 0.75;
          const number = inOrder ? (nextNumber.get(chain) ?? 1) : Math.floor(rnd() * 9);
          if (inOrder) nextNumber.set(chain, number + 1);
          const passId = inOrder
            ? `${chain}-n${number}-${Math.floor(rnd() * 1e6)}`
            : `${chain}-p${Math.floor(rnd() * 10)}`;
          const retry = sent.get(`${chain}/${passId}`);
          items.push(
            retry && rnd() < 0.7
              ? retry
              : passReceiptSchema.parse({
                  chain_id: chain,
                  pass_id: passId,
                  pass_number: number,
                  input_content_hash: rnd() < 0.2 ? null : pick(["a", "b"]),
                  current_content_hash: pick(["a", "b"]),
                  current_size_bytes: Math.floor(rnd() * 600),
                  is_parseable: rnd() > 0.05,
                  schema_valid: rnd() > 0.05,
                  semantic_density_score: Math.round(rnd() * 100) / 100,
                  content_class: pick(CLASSES),
                  // Over three days and up to a day ahead: several hours, and last activity from created_at too.
                  created_at: new Date(base + Math.floor(rnd() * 4 * 24 * HOUR)).toISOString(),
                  verdict: rnd() < 0.3 ? "SAFE_TO_COMPRESS" : undefined,
                  // Some passes bring filler as content, with the chain's source (kept when it is
                  // the first pass's input): measured, they fall under the floor their claims pass.
                  ...(rnd() < 0.2 ? { content: FILLER, input_content: SOURCE } : {}),
                }),
          );
        }
        try {
          await ingestPasses(items);
          for (const item of items)
            if (!sent.has(`${item.chain_id}/${item.pass_id}`)) sent.set(`${item.chain_id}/${item.pass_id}`, item);
        } catch (e) {
          if ((e as { code?: string }).code !== "idempotency_conflict") throw e;
        }
      }
      expect(await rows(sql`select * from chain_rollups`), `chain roll-ups, round ${round}`).toBe(
        await rows(RECOMPUTE_CHAIN_ROLLUPS),
      );
      expect(await rows(sql`select * from pass_rollups`), `pass roll-ups, round ${round}`).toBe(
        await rows(RECOMPUTE_PASS_ROLLUPS),
      );
      expect(await rows(sql`select * from chain_rollups_daily`), `daily chain roll-ups, round ${round}`).toBe(
        await rows(RECOMPUTE_CHAIN_ROLLUPS_DAILY),
      );
      expect(await rows(sql`select * from pass_rollups_daily`), `daily pass roll-ups, round ${round}`).toBe(
        await rows(RECOMPUTE_PASS_ROLLUPS_DAILY),
      );
    }

    // Range starts on and off the hour, before everything, in the middle, and none.
    const starts = [null, new Date(base - 5 * HOUR), new Date(base + 36 * HOUR), new Date(base + 36 * HOUR + 1234)];
    for (let i = 0; i < 6; i++) starts.push(new Date(base + Math.floor(rnd() * 4 * 24 * HOUR)));
    const seen: Awaited<ReturnType<typeof getOverviewFigures>>[] = [];
    for (const since of starts) {
      const figures = await getOverviewFigures(since);
      expect(figures, `since ${since?.toISOString()}`).toEqual(await countedFigures(since));
      if (since === null) seen.push(figures);
    }
    // The random writes reach every figure, the directive kinds included.
    for (const key of Object.keys(OVERVIEW_FIGURE_STATUS)) {
      expect(
        seen.some((f) => f[key as keyof typeof f] > 0),
        key,
      ).toBe(true);
    }

    // A chain counts as collapsed when it went past a floor, not when it reached one: the saves
    // reached floors too, and must not count.
    const db = await getDb();
    const collapsed = chainStatusCondition("collapsed");
    const perClass = await queryRows(
      db,
      sql`select content_class, count(*) as chains, count(*) filter (where ${collapsed}) as collapsed from chains
        group by content_class order by content_class`,
      { content_class: col.text, chains: col.int, collapsed: col.int },
    );
    expect(await listClassStats()).toEqual(perClass);

    // Six-hour buckets read the hourly roll-up, two-day buckets the daily one.
    for (const stride of [6 * 3600, 2 * 86_400]) {
      const origin = new Date(Math.floor((base - 24 * HOUR) / (stride * 1000)) * stride * 1000);
      const counted = await queryRows(
        db,
        sql`select date_bin(make_interval(secs => ${stride}), first_seen_at, ${origin.toISOString()}::timestamptz) as bucket,
            content_class, count(*) as started, count(*) filter (where ${collapsed}) as collapsed
          from chains where first_seen_at >= ${origin.toISOString()}::timestamptz group by 1, 2 order by 1, 2`,
        { bucket: col.date, content_class: col.text, started: col.int, collapsed: col.int },
      );
      expect(await listCollapseRates(origin, stride), `stride ${stride}`).toEqual(
        counted.map((r) => ({ ...r, bucket: r.bucket.toISOString() })),
      );
    }
    const reached = onlyRow(
      await queryRows(
        db,
        sql`select count(*) filter (where collapse_pass_id is not null and not ${collapsed}) as n from chains`,
        { n: col.int },
      ),
    );
    expect(reached.n, "chains that reached a floor without collapsing").toBeGreaterThan(0);
    const first = onlyRow(await queryRows(db, sql`select min(first_seen_at) as t from chains`, { t: col.date }));
    expect(await getFirstActivity()).toEqual(first.t);
  });
});
