// A log crusher: each pass removes the least severe level still present, then repeated lines
// (same text once numbers are masked) down to their first occurrence with a count.

const LEVELS = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR"] as const;

function levelOf(line: string): number {
  const i = LEVELS.findIndex((l) => line.includes(` ${l} `));
  return i < 0 ? LEVELS.length : i;
}

export function crushLogs(text: string): string {
  const lines = text.split("\n").filter((l) => l.length > 0);
  const lowest = Math.min(...lines.map(levelOf));
  if (lowest < LEVELS.indexOf("ERROR")) return lines.filter((l) => levelOf(l) !== lowest).join("\n");
  // Only errors left: fold repeats, then keep the first half.
  const seen = new Map<string, { line: string; n: number }>();
  for (const line of lines) {
    const shape = line.replace(/[0-9]+/g, "#");
    const entry = seen.get(shape);
    if (entry) entry.n++;
    else seen.set(shape, { line, n: 1 });
  }
  const folded = [...seen.values()].map((e) => (e.n > 1 ? `${e.line} (x${e.n})` : e.line));
  return folded.length === lines.length ? folded.slice(0, Math.ceil(folded.length / 2)).join("\n") : folded.join("\n");
}
