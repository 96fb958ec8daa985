// An extractive summariser: sentences scored by how often their words occur in the whole
// text, the better half kept in their order. Run on its own output it keeps what the text
// repeats most and loses the one-off specifics (numbers, names, times) first: a semantic void.

const STOP = new Set(
  "a an and are as at be by for from has have in is it its of on or that the this to was were will with which".split(
    " ",
  ),
);

export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** One pass: the top `keep` share of sentences (at least one), in their original order. */
export function summarise(text: string, keep = 0.5): string {
  const all = sentences(text);
  const words = (s: string) =>
    s
      .toLowerCase()
      .split(/[^a-z]+/)
      .filter((w) => w.length > 2 && !STOP.has(w));
  const counts = new Map<string, number>();
  for (const s of all) for (const w of words(s)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const scored = all.map((s, i) => {
    const ws = words(s);
    const score = ws.reduce((sum, w) => sum + (counts.get(w) ?? 0), 0) / Math.max(1, ws.length);
    return { s, i, score };
  });
  const n = Math.max(1, Math.floor(all.length * keep));
  const chosen = [...scored].sort((a, b) => b.score - a.score || a.i - b.i).slice(0, n);
  return chosen
    .sort((a, b) => a.i - b.i)
    .map((c) => c.s)
    .join(" ");
}
