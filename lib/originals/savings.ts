// Token accounting for CCR. A compression saves tokens once; every retrieval spends the
// whole original again, so net savings are the gross saving minus what retrievals put back.

/** The usual rough rate for English and JSON: used only when the client sends no counts. */
export const BYTES_PER_TOKEN = 4;

export function estimateTokens(bytes: number): number {
  return Math.ceil(bytes / BYTES_PER_TOKEN);
}

interface TokenInput {
  originalBytes: number;
  /** Null when the client did not send the compressed text. */
  compressedBytes: number | null;
  originalTokens?: number | null;
  compressedTokens?: number | null;
}

interface EntryTokens {
  /** Tokens saved by this compression; null when the compressed side is unknown. */
  tokensSaved: number | null;
  /** Tokens one retrieval puts back into the context. */
  retrievalTokens: number;
  /** Whether either count came from the byte estimate. */
  estimated: boolean;
}

export function entryTokens(input: TokenInput): EntryTokens {
  let estimated = false;
  let original = input.originalTokens ?? null;
  if (original === null) {
    original = estimateTokens(input.originalBytes);
    estimated = true;
  }
  let compressed = input.compressedTokens ?? null;
  if (compressed === null && input.compressedBytes !== null) {
    compressed = estimateTokens(input.compressedBytes);
    estimated = true;
  }
  return { tokensSaved: compressed === null ? null : original - compressed, retrievalTokens: original, estimated };
}

export interface SavingsSummary {
  gross: number;
  respent: number;
  net: number;
  /** Share of the gross saving given back by retrievals (0..1+), null with no gross saving. */
  respentShare: number | null;
}

export function summariseSavings(gross: number, respent: number): SavingsSummary {
  return { gross, respent, net: gross - respent, respentShare: gross > 0 ? respent / gross : null };
}
