// The columns of a chains export. The JSON export writes the same objects the chains API
// lists; the CSV flattens them into these columns.
import { csvRow } from "./csv";
import type { ChainSummaryWire } from "@/lib/schemas/chains";

const COLUMNS: [string, (c: ChainSummaryWire) => string | number | null][] = [
  ["chain_id", (c) => c.chain_id],
  ["content_class", (c) => c.content_class],
  ["statuses", (c) => c.statuses.join(";")],
  ["pass_count", (c) => c.pass_count],
  ["boundary_count", (c) => c.boundary_count],
  ["last_pass_id", (c) => c.last_pass_id],
  ["last_pass_number", (c) => c.last_pass_number],
  ["last_verdict", (c) => c.last_verdict],
  ["collapse_pass_id", (c) => c.collapse_point?.pass_id ?? null],
  ["collapse_pass_number", (c) => c.collapse_point?.pass_number ?? null],
  ["collapse_verdict", (c) => c.collapse_point?.verdict ?? null],
  ["client_mismatches", (c) => c.client_mismatches],
  ["integrity_findings", (c) => c.integrity_findings],
  ["min_semantic_density", (c) => c.min_semantic_density],
  ["min_size_bytes", (c) => c.min_size_bytes],
  ["first_seen_at", (c) => c.first_seen_at],
  ["last_activity_at", (c) => c.last_activity_at],
  // Added after the first release of the export: appended, so columns read by position stay put.
  ["measurement_mismatches", (c) => c.measurement_mismatches],
  ["min_measured_density", (c) => c.min_measured_density],
];

export const CHAIN_CSV_HEADER = csvRow(COLUMNS.map(([name]) => name));

export function chainCsvRow(chain: ChainSummaryWire): string {
  return csvRow(COLUMNS.map(([, value]) => value(chain)));
}
