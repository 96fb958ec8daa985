import { bigserial, foreignKey, index, pgTable, text, unique } from "drizzle-orm/pg-core";
import { safeBigint, timestampMs } from "./columns";
import { passes } from "./passes";

/**
 * The CCR markers a pass's content carries that name an original of the store (docs/markers.md):
 * one row per pass and original, written at ingest. An eviction or expiry finds the passes that
 * still point at an original by its hash here, and a retrieval the passes whose marker it answers.
 * No foreign key to its pass: checking it cost about as much as writing the rows, which is most
 * of what the findings add to an ingest (bench:markers). Whatever deletes passes deletes their
 * rows in the same statement (db/queries/retention.ts), through the unique key's chain_id.
 */
export const passMarkers = pgTable(
  "pass_markers",
  {
    chainId: text("chain_id").notNull(),
    passId: text("pass_id").notNull(),
    passNumber: safeBigint("pass_number").notNull(),
    /** The key the marker carries (12 to 64 hex, lower case). */
    marker: text("marker").notNull(),
    /** The full SHA-256 of the original it named when the pass was stored (default tenant). */
    originalHash: text("original_hash").notNull(),
    createdAt: timestampMs("created_at").notNull(),
  },
  (t) => [
    unique("pass_markers_pass_original_key").on(t.chainId, t.passId, t.originalHash),
    index("pass_markers_original_idx").on(t.originalHash),
  ],
);

/**
 * Marker integrity findings (docs/markers.md): a marker that leads nowhere, or an original
 * that came back compressed. One per pass, kind and marker hash, found at ingest, on retrieval
 * or when an original expired or was evicted; it goes with its pass.
 */
export const markerFindings = pgTable(
  "marker_findings",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    chainId: text("chain_id").notNull(),
    passId: text("pass_id").notNull(),
    passNumber: safeBigint("pass_number").notNull(),
    kind: text("kind").notNull(),
    /** The marker's key, or the original's hash for `retrieve_recompressed`. */
    hash: text("hash").notNull(),
    detail: text("detail").notNull(),
    foundAt: timestampMs("found_at").notNull(),
  },
  (t) => [
    unique("marker_findings_pass_kind_hash_key").on(t.chainId, t.passId, t.kind, t.hash),
    index("marker_findings_chain_idx").on(t.chainId, t.passNumber, t.id),
    // The overview counts findings (and their chains) by kind in a time range.
    index("marker_findings_found_idx").on(t.foundAt, t.kind),
    foreignKey({
      name: "marker_findings_pass_fkey",
      columns: [t.chainId, t.passId],
      foreignColumns: [passes.chainId, passes.passId],
    }).onDelete("cascade"),
  ],
);
