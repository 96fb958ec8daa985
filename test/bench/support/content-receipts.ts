// Receipts that carry their pass's content (4 KiB by default) for bench:ingest's content case,
// and the same receipts without it: pass 1 of each chain brings the chain's source as
// `input_content`, so every pass with content is measured (docs/measurement.md). The texts are
// log-like lines with the values a fact counts (times, ids, paths, numbers with units, error
// lines); each pass is a new log of the source's shape (its request ids, paths and timings new,
// so most of its tokens are new to the measurement: harder than a pass derived from the source).
// Seeded, so two runs send the same bytes.
import { createHash } from "node:crypto";
import { seededRandom } from "../../support/random";

const hex = (text: string) => createHash("sha256").update(text).digest("hex");

/** A log of about `bytes` UTF-8 bytes for pass `pass` of chain `chain` (pass 0: the source). */
function logText(chain: number, pass: number, bytes: number, random: () => number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const second = String(i % 60).padStart(2, "0");
    const line =
      random() < 0.08
        ? `2026-11-30T10:${String(pass % 60).padStart(2, "0")}:${second}Z ERROR db timeout after ${1000 + Math.floor(random() * 9000)} ms on query=get_orders shard=${chain % 16}`
        : `2026-11-30T10:${String(pass % 60).padStart(2, "0")}:${second}Z INFO api request id=r${chain}-${pass}-${i} path=/orders/${Math.floor(random() * 1e5)} status=200 ms=${Math.floor(random() * 300)}`;
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  const text = lines.join("\n");
  return text.length > bytes ? text.slice(0, bytes) : text;
}

export interface ContentReceipt {
  chain_id: string;
  pass_id: string;
  pass_number: number;
  input_content_hash: string;
  current_content_hash: string;
  current_size_bytes: number;
  is_parseable: boolean;
  schema_valid: boolean;
  semantic_density_score: number;
  content_class: string;
  created_at: string;
  content?: string;
  input_content?: string;
}

/**
 * `batches` batches of `chains` × `passesPerBatch` receipts continuing the same chains; with
 * `withContent` each carries its content (and pass 1 the source), else the same receipts bare.
 */
export function contentBatches(options: {
  prefix: string;
  chains: number;
  passesPerBatch: number;
  batches: number;
  contentBytes: number;
  contentClass: string;
  withContent: boolean;
  /** Pass 1 brings the chain's source (default), so the passes are measured, not only checked. */
  withSource?: boolean;
  seed: number;
}): ContentReceipt[][] {
  const random = seededRandom(options.seed);
  const start = Date.parse("2026-01-01T00:00:00.000Z");
  const last = Array.from({ length: options.chains }, (_, c) => {
    const source = logText(c, 0, options.contentBytes, random);
    return { source, hash: hex(source), next: 1 };
  });
  const out: ContentReceipt[][] = [];
  for (let b = 0; b < options.batches; b++) {
    const batch: ContentReceipt[] = [];
    for (let c = 0; c < options.chains; c++) {
      const state = last[c] as (typeof last)[number];
      for (let k = 0; k < options.passesPerBatch; k++) {
        const pass = state.next++;
        const content = logText(c, pass, options.contentBytes, random);
        const hash = hex(content);
        batch.push({
          chain_id: `${options.prefix}-${c}`,
          pass_id: `${options.prefix}-${c}.p${pass}`,
          pass_number: pass,
          input_content_hash: state.hash,
          current_content_hash: hash,
          current_size_bytes: Buffer.byteLength(content),
          is_parseable: true,
          schema_valid: true,
          semantic_density_score: Math.round((0.5 + random() * 0.5) * 1000) / 1000,
          content_class: options.contentClass,
          created_at: new Date(start + (b * options.passesPerBatch + k) * 1000).toISOString(),
          ...(options.withContent
            ? { content, ...(pass === 1 && options.withSource !== false ? { input_content: state.source } : {}) }
            : {}),
        });
        state.hash = hash;
      }
    }
    out.push(batch);
  }
  return out;
}
