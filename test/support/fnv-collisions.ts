// Tokens that all share FNV-1a's 32-bit hash for its published constants (basis 0x811c9dc5,
// prime 16777619): what a sender can make against a table hashed with fixed constants (see
// lib/measure/intern.ts, FNV_OFFSET). Used by the robustness test and bench:measure.

const PRIME = 16777619;
export const FNV_BASIS = 0x811c9dc5 | 0;

/** FNV-1a with the published constants, from state `h` over `s`. */
export function fnv1a(s: string, h = FNV_BASIS): number {
  let x = h;
  for (let i = 0; i < s.length; i++) x = Math.imul(x ^ s.charCodeAt(i), PRIME);
  return x;
}

const LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/**
 * 2^`places` tokens of letters sharing one hash: at each place a pair of five-letter blocks that
 * leave FNV-1a in the same state (found by the birthday bound), each token one choice per place.
 * Deterministic for a `seed`. `limit` stops early, for a bench that wants a size, not a count.
 */
export function collidingTokens(places: number, seed = 7, limit = 2 ** places): string[] {
  let s = seed;
  const letter = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return LETTERS[(s >>> 16) % 52] as string;
  };
  const pairs: [string, string][] = [];
  let state = FNV_BASIS;
  while (pairs.length < places) {
    const seen = new Map<number, string>();
    for (;;) {
      const block = Array.from({ length: 5 }, letter).join("");
      const after = fnv1a(block, state);
      const other = seen.get(after);
      if (other !== undefined && other !== block) {
        pairs.push([other, block]);
        state = after;
        break;
      }
      seen.set(after, block);
    }
  }
  return Array.from({ length: Math.min(limit, 2 ** places) }, (_, m) =>
    pairs.map((pair, b) => pair[(m >> b) & 1]).join(""),
  );
}
