// The recommendation's read of a class (db/queries/recommendation.ts) against a real database,
// fed through the ingest endpoints: it must hand over exactly the chains that were recorded,
// in replay order, with the server's own findings on content counted as failures, whether
// the class is read whole or in ranges of chain ids (as PostgreSQL reads a large class).
import { describe, expect, it } from "vitest";
import { POST as postBoundaries } from "@/app/api/v1/boundaries/route";
import { POST as postPasses } from "@/app/api/v1/passes/route";
import { PUT as putPolicy } from "@/app/api/v1/policies/[content_class]/route";
import { getDb } from "@/db/index";
import { getChainFailure, getClassChains, readClassChains } from "@/db/queries/recommendation";
import { sha256Hex } from "@/lib/guard/hash";
import { type ChainColumns, type RecordedChain, type RecordedPass, toColumns } from "@/lib/recommend";
import { failureOf } from "@/lib/recommend/chains";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";
import { call, post } from "./api-helpers";

setUpTestDatabase();

const CLASS = "read-json";

interface Sent extends RecordedPass {
  chain_id: string;
  pass_id: string;
  content?: string;
}

function pass(chainId: string, n: number, size: number, density: number, extra: Partial<Sent> = {}): Sent {
  return {
    chain_id: chainId,
    pass_id: `${chainId}.p${n}`,
    pass_number: n,
    current_size_bytes: size,
    semantic_density_score: density,
    is_parseable: true,
    schema_valid: true,
    ...extra,
  };
}

const notJson = "{ this is not json but it is long enough to pass any floor on size, surely }";

/** Chains whose ids, numbers and flags would trip a careless packing. */
const CHAINS: { id: string; passes: Sent[]; restoreAt?: number }[] = [
  {
    id: "plain",
    passes: [pass("plain", 1, 1000, 0.9), pass("plain", 2, 800, 0.30000000000000004), pass("plain", 3, 600, 1e-7)],
  },
  // A comma, a quote and a backslash in the id; pass numbers starting at 0.
  {
    id: 'a,b "c" \\d',
    passes: [pass('a,b "c" \\d', 0, 5000, 1), pass('a,b "c" \\d', 1, 4000, 0), pass('a,b "c" \\d', 2, 3000, 0.5)],
  },
  // Sent out of order, with two passes numbered 2 (ties keep the order they were recorded in).
  {
    id: "ünïcode-☃",
    passes: [
      pass("ünïcode-☃", 3, 300, 0.4183749),
      pass("ünïcode-☃", 1, 900, 0.8),
      pass("ünïcode-☃", 2, 700, 0.7),
      pass("ünïcode-☃", 2, 650, 0.6, { pass_id: "ünïcode-☃.p2b", schema_valid: false }),
    ],
  },
  // The largest size a receipt may carry.
  {
    id: "huge",
    passes: [pass("huge", 1, Number.MAX_SAFE_INTEGER, 0.99), pass("huge", 2, 9007199254740000, 0.98)],
  },
  // Claimed parseable, found unparseable by the server: a failure all the same.
  {
    id: "found-broken",
    passes: [
      pass("found-broken", 1, 1200, 0.9),
      pass("found-broken", 2, Buffer.byteLength(notJson), 0.8, {
        content: notJson,
        current_content_hash: sha256Hex(notJson),
      } as Partial<Sent>),
      pass("found-broken", 3, 60, 0.7),
    ],
  },
  { id: "restored", passes: [pass("restored", 1, 100, 0.9), pass("restored", 2, 90, 0.8)], restoreAt: 2 },
  ...Array.from({ length: 12 }, (_, i) => {
    const id = `many-${String(i).padStart(2, "0")}`;
    return { id, passes: [1, 2, 3, 4].map((n) => pass(id, n, 2000 - n * 100 - i, 0.9 - n * 0.05 - i / 1000)) };
  }),
];

function receipt(p: Sent) {
  const { checked: _, ...rest } = p;
  return { current_content_hash: `${p.pass_id}:hash`, content_class: CLASS, ...rest };
}

/** Each chain's passes and failure boundary, keyed by chain id, so the server's order of chains does not matter. */
function byChain(cols: ChainColumns) {
  const out = new Map<string, unknown>();
  cols.chainIds.forEach((id, c) => {
    const range = (col: Float64Array | Uint8Array) => Array.from(col.subarray(cols.offsets[c], cols.offsets[c + 1]));
    out.set(id, {
      passNumber: range(cols.passNumber),
      sizeBytes: range(cols.sizeBytes),
      density: range(cols.density),
      broken: range(cols.broken),
      boundaryFailure: cols.boundaryFailure[c],
    });
  });
  return out;
}

describe("the recommendation's read of a class", () => {
  it("hands over exactly the recorded chains, read whole or in any ranges of chain ids", async () => {
    const put = await call(
      putPolicy,
      jsonRequest(`/api/v1/policies/${CLASS}`, {
        method: "PUT",
        body: { min_size_bytes: 10, min_semantic_density: 0.1, max_pass_number: 10, format: "json" },
      }),
      params({ content_class: CLASS }),
    );
    expect(put.status, put.text).toBe(201);
    // One pass at a time, in the order listed, so recorded order is the order above.
    for (const chain of CHAINS) {
      for (const p of chain.passes) {
        const answer = await post(postPasses, "/api/v1/passes", receipt(p));
        expect(answer.status, answer.text).toBe(201);
      }
      if (chain.restoreAt !== undefined) {
        const answer = await post(postBoundaries, "/api/v1/boundaries", {
          chain_id: chain.id,
          pass_number: chain.restoreAt,
          strategy: "restore",
          reason: "lost",
          restore_pass_id: `${chain.id}.p1`,
        });
        expect(answer.status, answer.text).toBe(201);
      }
    }
    // Another class's passes, one of them in a chain of this class, are not this class's.
    const other = await post(postPasses, "/api/v1/passes", {
      receipts: [
        { ...receipt(pass("plain", 4, 10, 0.1, { is_parseable: false })), content_class: "other" },
        { ...receipt(pass("elsewhere", 1, 10, 0.1)), content_class: "other" },
      ],
    });
    expect(other.status, other.text).toBe(201);

    const expected: RecordedChain[] = CHAINS.map((chain) => ({
      chain_id: chain.id,
      passes: chain.passes.map((p) =>
        p.content === undefined ? p : { ...p, checked: { parseable: false, schema_valid: false } },
      ),
      boundaries: chain.restoreAt === undefined ? [] : [{ pass_number: chain.restoreAt, strategy: "restore" as const }],
    }));
    const whole = await getClassChains(CLASS);
    expect(byChain(whole)).toEqual(byChain(toColumns(expected)));
    expect(whole.chainIds).toHaveLength(CHAINS.length);
    expect(byChain(whole).get("found-broken")).toMatchObject({ broken: [0, 1, 0] });
    expect(byChain(whole).get("ünïcode-☃")).toMatchObject({ passNumber: [1, 2, 2, 3], broken: [0, 0, 1, 0] });

    // In ranges: cut at every chain id (in the server's order), at ids between and beyond
    // them, and not at all; the columns are the same, chain for chain and in the same order.
    const db = await getDb();
    const failureBoundaries = new Map([["restored", 2]]);
    const inRanges = (bounds: string[]) => readClassChains(db, CLASS, bounds, failureBoundaries);
    for (const bounds of [[], whole.chainIds, whole.chainIds.slice(1, 4), ["m"], ["", "many-05", "zzzz"]]) {
      expect(await inRanges(bounds), JSON.stringify(bounds)).toEqual(whole);
    }
    // A class with no passes reads as no chains, whole or in ranges.
    expect((await getClassChains("never-seen")).chainIds).toEqual([]);
    expect((await readClassChains(db, "never-seen", ["m"], new Map())).chainIds).toEqual([]);
  });
  it("the chain page finds each chain's failure where the class read does, and none for a healthy chain", async () => {
    // Runs after the test above recorded CHAINS: the class read is the reference.
    const cols = await getClassChains(CLASS);
    expect(cols.chainIds.length).toBe(CHAINS.length);
    let failing = 0;
    for (const [c, id] of cols.chainIds.entries()) {
      const failure = failureOf(cols, c);
      expect(await getChainFailure(id, CLASS), id).toBe(failure);
      if (failure !== null) failing++;
    }
    // The broken, the found-broken and the restored chains at least.
    expect(failing).toBeGreaterThanOrEqual(3);
    expect(await getChainFailure("plain", CLASS)).toBeNull();
    // A chain with no pass of the class has no failure in it, whatever its other passes.
    expect(await getChainFailure("plain", "other")).toBe(4);
    expect(await getChainFailure("restored", "other")).toBeNull();
  });
});
