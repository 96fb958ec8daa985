// `npm run bench:ccr-diff`: the original page's diff (lib/originals/diff.ts) on inputs at its 4 MiB
// limit: JSON with a field dropped everywhere and the array cut, a log cut to a tenth (edit
// script), and two unrelated logs (the line diff gives up on the script and counts). Median
// of a few runs each; the page renders the diff on the server, so this is added to its time.
import { diffContent, DIFF_MAX_CHARS } from "@/lib/originals/diff";
import { median, printTable } from "./support/report";

const RUNS = 5;

function orders(count: number, withSku: boolean): string {
  return JSON.stringify(
    Array.from({ length: count }, (_, i) => ({
      id: `ord_${i}`,
      status: ["paid", "shipped"][i % 2],
      items: Array.from({ length: 3 }, (_, j) => (withSku ? { sku: `SKU-${i}-${j}`, quantity: j } : { quantity: j })),
    })),
  );
}

function log(lines: number, word: string): string {
  return Array.from({ length: lines }, (_, i) => `2026-01-01T10:00:00Z INFO ${word} handled request ${i}`).join("\n");
}

function fit(make: (n: number) => string, start: number): string {
  let n = start;
  while (make(n * 2).length <= DIFF_MAX_CHARS) n *= 2;
  return make(n);
}

const cases: Array<[string, string, string]> = (() => {
  const json = fit((n) => orders(n, true), 1000);
  const count = JSON.parse(json).length as number;
  const bigLog = fit((n) => log(n, "worker"), 1000);
  const lines = bigLog.split("\n");
  return [
    ["JSON, sku dropped, array cut to a tenth", json, orders(Math.floor(count / 10), false)],
    ["log cut to its first tenth", bigLog, lines.slice(0, Math.floor(lines.length / 10)).join("\n")],
    ["log with every tenth line changed", bigLog, lines.map((l, i) => (i % 10 === 0 ? `${l}!` : l)).join("\n")],
    ["two unrelated logs", bigLog, fit((n) => log(n, "other"), 1000)],
  ];
})();

const rows = cases.map(([name, a, b]) => {
  const times: number[] = [];
  let kind = "";
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const diff = diffContent(a, b);
    times.push(performance.now() - started);
    kind = diff.kind === "text" ? (diff.script ? "text (script)" : "text (counts only)") : diff.kind;
  }
  return [name, `${(a.length / 1024 / 1024).toFixed(2)} MiB`, kind, `${median(times).toFixed(0)} ms`];
});
printTable(["case", "original", "diff", "median"], rows);
