// Lineages of traces through the real route handlers on a real database (PGlite, or
// PostgreSQL when TEST_DATABASE_URL is set): a successor that re-explores an ancestor's wall
// or contradicts its axiom, a parent that arrives after its child, bad and cyclic parents,
// the depth bound, and what MCP's constraints and the overview figure read from them.
import { describe, expect, it } from "vitest";
import { countSuccessorsThatHitAWall, getLineageConstraints } from "@/db/queries/trace-lineage";
import { LINEAGE_MAX_DEPTH } from "@/lib/traces/lineage";
import type { ReasoningNode } from "@/lib/traces/trace";
import { POST as submit } from "@/app/api/v1/traces/route";
import { GET as getRoute } from "@/app/api/v1/traces/[trace_id]/route";
import { jsonRequest, params, setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const noParams = params({});

async function post(body: Record<string, unknown>) {
  const response = await submit(jsonRequest("/api/v1/traces", { body }), noParams);
  return { status: response.status, body: await response.json() };
}

async function get(traceId: string) {
  const response = await getRoute(
    jsonRequest(`/api/v1/traces/${encodeURIComponent(traceId)}`),
    params({ trace_id: traceId }),
  );
  return { status: response.status, body: await response.json() };
}

const n = (
  node_id: string,
  node_type: ReasoningNode["node_type"],
  content: string,
  verification_receipt: string | null = null,
): ReasoningNode => ({ node_id, node_type, content, verification_receipt });

/** A predecessor that found one wall and one axiom. */
const ancestorNodes = [
  n("a1", "EXPLORATORY_CHATTER", "Maybe the cache is stale."),
  n("a2", "FALSIFIED_PATH", "Raise the pool size to 64", "pool=64 still times out: run 118 exit 1"),
  n(
    "a3",
    "VERIFIED_CONCLUSION",
    "The deadlock is in the retry loop",
    "pytest tests/test_retry.py: 1 failed, then passed with the fix",
  ),
];

/** A successor that walks into both: the wall (reworded in case and spacing) and the opposite of the axiom. */
const successorNodes = [
  n("s1", "EXPLORATORY_CHATTER", "  raise the POOL   size to 64 "),
  n("s2", "FALSIFIED_PATH", "the deadlock is in the retry loop", "the loop exits cleanly under strace"),
  n("s3", "VERIFIED_CONCLUSION", "The lock order is inverted", "test_lock_order passed"),
];

describe("walls re-explored across a lineage", () => {
  it("finds a re-explored wall and a contradicted axiom, with the ancestor's receipts", async () => {
    expect((await post({ trace_id: "lin-a", nodes: ancestorNodes })).status).toBe(201);
    const stored = await post({ trace_id: "lin-b", parent_trace_id: "lin-a", nodes: successorNodes });
    expect(stored.status).toBe(201);
    expect(stored.body.parent_trace_id).toBe("lin-a");

    const { status, body } = await get("lin-b");
    expect(status).toBe(200);
    const byKind = Object.fromEntries(body.findings.map((f: { kind: string }) => [f.kind, f]));
    expect(body.findings).toHaveLength(2);
    expect(byKind.wall_reexplored).toMatchObject({
      ancestor_trace_id: "lin-a",
      depth: 1,
      node_id: "s1",
      node_type: "EXPLORATORY_CHATTER",
      node_count: 1,
      text: null,
      ancestor_text: "Raise the pool size to 64",
      ancestor_receipt: "pool=64 still times out: run 118 exit 1",
    });
    expect(byKind.axiom_contradicted).toMatchObject({
      ancestor_trace_id: "lin-a",
      depth: 1,
      node_id: "s2",
      text: "the deadlock is in the retry loop -> the loop exits cleanly under strace",
      ancestor_text: "The deadlock is in the retry loop",
      ancestor_receipt: "pytest tests/test_retry.py: 1 failed, then passed with the fix",
    });
    // The POST's answer carries them too.
    expect(stored.body.findings).toHaveLength(2);
    // And the ancestor itself has none: findings belong to the successor.
    expect((await get("lin-a")).body.findings).toEqual([]);
  });

  it("matches only the documented rule: a paraphrase is not a wall", async () => {
    const { body } = await post({
      trace_id: "lin-paraphrase",
      parent_trace_id: "lin-a",
      nodes: [n("p1", "EXPLORATORY_CHATTER", "Raise the pool size to sixty-four")],
    });
    expect(body.findings).toEqual([]);
  });

  it("a trace without a parent has no findings, even when it repeats another trace's wall", async () => {
    const { body } = await post({ trace_id: "lin-orphan", nodes: successorNodes });
    expect(body.parent_trace_id).toBeNull();
    expect(body.findings).toEqual([]);
  });

  it("gives a child its findings when its parent arrives after it, and through a missing middle", async () => {
    // late-c → late-b → late-a, stored child first.
    const child = await post({ trace_id: "late-c", parent_trace_id: "late-b", nodes: successorNodes });
    expect(child.status).toBe(201);
    expect(child.body.findings).toEqual([]);
    const middle = await post({
      trace_id: "late-b",
      parent_trace_id: "late-a",
      nodes: [n("m1", "EXPLORATORY_CHATTER", "Reading the logs again")],
    });
    expect(middle.status).toBe(201);
    expect((await get("late-c")).body.findings).toEqual([]);
    expect((await post({ trace_id: "late-a", nodes: ancestorNodes })).status).toBe(201);

    const findings = (await get("late-c")).body.findings;
    expect(
      findings
        .map((f: { kind: string; ancestor_trace_id: string; depth: number }) => [f.kind, f.ancestor_trace_id, f.depth])
        .sort(),
    ).toEqual([
      ["axiom_contradicted", "late-a", 2],
      ["wall_reexplored", "late-a", 2],
    ]);
    // The middle trace did neither.
    expect((await get("late-b")).body.findings).toEqual([]);
  });

  it("a retry of a stored successor is a retry, and a different parent is a conflict", async () => {
    const again = await post({ trace_id: "lin-b", parent_trace_id: "lin-a", nodes: successorNodes });
    expect(again.status).toBe(200);
    expect(again.body.findings).toHaveLength(2);
    const other = await post({ trace_id: "lin-b", parent_trace_id: "lin-orphan", nodes: successorNodes });
    expect(other.status).toBe(409);
  });

  it("refuses bad parent ids with the contract's 422, never a 5xx", async () => {
    for (const parent of ["", "x".repeat(257), 42, ["lin-a"]]) {
      const { status, body } = await post({
        trace_id: `bad-${String(parent).length}`,
        parent_trace_id: parent,
        nodes: [],
      });
      expect(status).toBe(422);
      expect(body.error.code).toBe("validation_failed");
      expect(JSON.stringify(body.error.issues)).toContain("parent_trace_id");
    }
    const self = await post({ trace_id: "self", parent_trace_id: "self", nodes: [] });
    expect(self.status).toBe(422);
    expect(self.body.error.issues[0].path).toBe("parent_trace_id");
  });

  it("accepts a parent that does not exist yet, and refuses the link that would close a cycle", async () => {
    expect((await post({ trace_id: "cyc-1", parent_trace_id: "cyc-2", nodes: [] })).status).toBe(201);
    expect((await post({ trace_id: "cyc-3", parent_trace_id: "cyc-1", nodes: [] })).status).toBe(201);
    // cyc-2 → cyc-3 → cyc-1 → cyc-2 would be a loop.
    const closing = await post({ trace_id: "cyc-2", parent_trace_id: "cyc-3", nodes: [] });
    expect(closing.status).toBe(422);
    expect(closing.body.error.code).toBe("validation_failed");
    expect(closing.body.error.message).toContain("cycle");
    expect((await get("cyc-2")).status).toBe(404);
    // Named with a parent outside the loop, it is welcome.
    expect((await post({ trace_id: "cyc-2", parent_trace_id: "lin-a", nodes: [] })).status).toBe(201);
  });

  it(`compares at most ${LINEAGE_MAX_DEPTH} generations up`, async () => {
    // deep-0 holds the wall; deep-1 .. deep-(MAX+1) descend from it, each quiet.
    expect((await post({ trace_id: "deep-0", nodes: ancestorNodes })).status).toBe(201);
    for (let i = 1; i <= LINEAGE_MAX_DEPTH; i++) {
      expect((await post({ trace_id: `deep-${i}`, parent_trace_id: `deep-${i - 1}`, nodes: [] })).status).toBe(201);
    }
    const within = await post({
      trace_id: "deep-within",
      parent_trace_id: `deep-${LINEAGE_MAX_DEPTH - 1}`,
      nodes: successorNodes,
    });
    expect(within.body.findings.map((f: { depth: number }) => f.depth)).toEqual([LINEAGE_MAX_DEPTH, LINEAGE_MAX_DEPTH]);
    const beyond = await post({
      trace_id: "deep-beyond",
      parent_trace_id: `deep-${LINEAGE_MAX_DEPTH}`,
      nodes: successorNodes,
    });
    expect(beyond.body.findings).toEqual([]);
  });

  it("MCP's constraints read the whole lineage, oldest first", async () => {
    const lineage = await getLineageConstraints("late-c");
    expect(lineage?.traces.map((t) => t.trace_id)).toEqual(["late-a", "late-b", "late-c"]);
    expect(lineage?.truncated).toBe(false);
    const deep = await getLineageConstraints("deep-beyond");
    expect(deep?.traces).toHaveLength(LINEAGE_MAX_DEPTH + 1);
    expect(deep?.truncated).toBe(true);
    expect(await getLineageConstraints("no-such-trace")).toBeNull();
  });

  it("counts successors that hit a wall, once each", async () => {
    const before = await countSuccessorsThatHitAWall(null);
    await post({ trace_id: "count-a", nodes: ancestorNodes });
    await post({ trace_id: "count-b", parent_trace_id: "count-a", nodes: successorNodes });
    await post({ trace_id: "count-quiet", parent_trace_id: "count-a", nodes: [] });
    // count-b has two findings and counts once; count-quiet hit nothing.
    expect(await countSuccessorsThatHitAWall(null)).toBe(before + 1);
    expect(await countSuccessorsThatHitAWall(new Date(Date.now() + 60_000))).toBe(0);
  });
});
