import { pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, safeBigint } from "./columns";

/**
 * Each chain's source: what its first pass compressed, kept once per chain so that every
 * later pass with content can be measured against it (docs/measurement.md, "Measured on
 * ingest"). Written by the pass ingest from pass 1's `input_content`, or copied from the
 * cached original that pass 1's `input_content_hash` names (a copy, so that evicting the
 * original does not leave the chain's later passes unmeasured). At most 4 MiB, like any
 * content; retention deletes it with its chain.
 */
export const chainSources = pgTable("chain_sources", {
  chainId: text("chain_id").primaryKey(),
  source: text("source").notNull(),
  /** SHA-256 of the source as UTF-8, lowercase hex. */
  sha256: text("sha256").notNull(),
  sizeBytes: safeBigint("size_bytes").notNull(),
  /** `input_content`: sent with pass 1; `original`: copied from the cached original pass 1 named. */
  origin: text("origin").$type<"input_content" | "original">().notNull(),
  /** The pass whose input it is. */
  passId: text("pass_id").notNull(),
  createdAt: createdAt(),
});
