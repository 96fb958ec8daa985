// A chain's passes for the chain page: keyset pages with each row's flags and integrity
// finding, and one pass with the policy it was judged under.
import "server-only";
import { and, asc, desc, eq, getTableColumns, inArray, sql } from "drizzle-orm";
import { getReadDb } from "../index";
import { keysetDirection, keysetPage } from "../keyset";
import { passes, policies } from "../schema";
import { getIntegrityContext } from "./chain-integrity";
import { findIntegrityIssues } from "@/lib/chains/integrity";
import { PASS_FLAG, passFlags, type FlagInput } from "@/lib/chains/downsample";
import type { CompressionPolicy, Verdict } from "@/lib/guard/guard";
import { CONSERVATIVE_DEFAULT_POLICY } from "@/lib/guard/policy";
import type { PassCursor, PassDetail, PassPage } from "@/lib/chains/types";
import type { BoundaryWire } from "@/lib/schemas/boundaries";
import { type PassWire, passWireSchema } from "@/lib/schemas/passes";
import type { ColumnNames } from "../types";

type PassRecord = typeof passes.$inferSelect;

// The stored pass as the API answers it: each field of the wire schema is the column of the
// same name (timestamps as ISO text). A wire field with no column does not compile.
const wireFieldsAreColumns: [Exclude<keyof PassWire, ColumnNames<PassRecord>>] extends [never] ? true : false = true;
void wireFieldsAreColumns;
const KEY_OF_COLUMN = new Map(Object.entries(getTableColumns(passes)).map(([key, column]) => [column.name, key]));
const WIRE_COLUMNS = Object.keys(passWireSchema.shape).map((field) => {
  const key = KEY_OF_COLUMN.get(field);
  if (!key) throw new Error(`the passes table has no column ${field}`);
  return [field, key as keyof PassRecord] as const;
});

export function toPassWire(p: PassRecord): PassWire {
  const wire: Record<string, unknown> = {};
  for (const [field, key] of WIRE_COLUMNS) {
    const value = p[key];
    wire[field] = value instanceof Date ? value.toISOString() : value;
  }
  return wire as PassWire;
}

/**
 * One page of a chain's passes in chain order, keyset-paged by (pass_number, id). `from`
 * opens the page that starts at a pass number (used to jump to a selected pass).
 */
export async function listChainPasses(
  chainId: string,
  cursor: PassCursor,
  limit: number,
  boundaryList: readonly BoundaryWire[],
): Promise<PassPage> {
  const db = await getReadDb();
  const inChain = eq(passes.chainId, chainId);
  const read = (from: [number, number] | undefined, forward: boolean, limit: number) => {
    const { op, asc: ascending } = keysetDirection(false, forward);
    const position = from ? sql`(${passes.passNumber}, ${passes.id}) ${op} (${from[0]}, ${from[1]})` : undefined;
    return db
      .select()
      .from(passes)
      .where(and(inChain, position))
      .orderBy(
        ascending ? asc(passes.passNumber) : desc(passes.passNumber),
        ascending ? asc(passes.id) : desc(passes.id),
      )
      .limit(limit);
  };
  const {
    items: page,
    prev,
    next,
  } = await keysetPage<PassRecord, [number, number]>({
    limit,
    // Ids start at 1, so "from pass number n" is "after (n, 0)".
    after: "after" in cursor ? cursor.after : "from" in cursor ? [cursor.from, 0] : undefined,
    before: "before" in cursor ? cursor.before : undefined,
    keyOf: (p) => [p.passNumber, p.id],
    neighbours: "check",
    read,
  });
  const first = page[0];
  if (!first) return { rows: [], prev: null, next: null };

  // The pass before the page decides the first row's flags.
  const before = await read([first.passNumber, first.id], false, 1);
  const classes = [...new Set([...page, ...before].map((p) => p.contentClass))];
  const [floorOf, context] = await Promise.all([policyFloors(classes), getIntegrityContext(chainId, boundaryList)]);
  const boundaryNumbers = new Set(boundaryList.map((b) => b.pass_number));
  const restoreIds = new Set(boundaryList.flatMap((b) => (b.restore_pass_id ? [b.restore_pass_id] : [])));

  let prevInput: FlagInput | null = before[0] ? toFlagInput(before[0], floorOf) : null;
  let prevWire: PassWire | null = before[0] ? toPassWire(before[0]) : null;
  const rows = page.map((p) => {
    const wire = toPassWire(p);
    const input = toFlagInput(p, floorOf);
    const flags = passFlags(prevInput, input, {
      isBoundary: boundaryNumbers.has(p.passNumber) || restoreIds.has(p.passId),
      context,
    });
    const integrity =
      flags & PASS_FLAG.integrity
        ? (findIntegrityIssues(prevWire ? [prevWire, wire] : [wire], context).find((f) => f.pass_id === p.passId) ??
          null)
        : null;
    prevInput = input;
    prevWire = wire;
    return { ...wire, id: p.id, flags, integrity };
  });
  return { rows, prev, next };
}

/** Floors by "class:version" for the given classes, the built-in default under version 0. */
async function policyFloors(
  classes: readonly string[],
): Promise<(contentClass: string, version: number) => CompressionPolicy> {
  const db = await getReadDb();
  const rows = classes.length
    ? await db
        .select()
        .from(policies)
        .where(inArray(policies.contentClass, [...classes]))
    : [];
  const byKey = new Map(rows.map((r) => [`${r.contentClass}:${r.version}`, r]));
  return (contentClass, version) => {
    const row = byKey.get(`${contentClass}:${version}`);
    return row
      ? {
          min_size_bytes: row.minSizeBytes,
          min_semantic_density: row.minSemanticDensity,
          max_pass_number: row.maxPassNumber,
        }
      : CONSERVATIVE_DEFAULT_POLICY;
  };
}

function toFlagInput(p: PassRecord, floorOf: (contentClass: string, version: number) => CompressionPolicy): FlagInput {
  const floor = floorOf(p.contentClass, p.policyVersion);
  return {
    pass_id: p.passId,
    pass_number: p.passNumber,
    input_content_hash: p.inputContentHash,
    current_content_hash: p.currentContentHash,
    current_size_bytes: p.currentSizeBytes,
    semantic_density_score: p.semanticDensityScore,
    verdict: p.verdict,
    client_mismatch: p.clientMismatch,
    checked_mismatch: p.checkedMismatch,
    measurement_mismatch: p.measurementMismatch,
    policy_version: p.policyVersion,
    content_class: p.contentClass,
    floor_size: floor.min_size_bytes,
    floor_density: floor.min_semantic_density,
  };
}

export async function getChainPass(chainId: string, passId: string): Promise<PassDetail | null> {
  const db = await getReadDb();
  const [row] = await db
    .select()
    .from(passes)
    .where(and(eq(passes.chainId, chainId), eq(passes.passId, passId)));
  if (!row) return null;
  const floorOf = await policyFloors([row.contentClass]);
  return {
    ...toPassWire(row),
    id: row.id,
    policy: {
      ...floorOf(row.contentClass, row.policyVersion),
      content_class: row.contentClass,
      version: row.policyVersion,
    },
  };
}
