// The facts ledger's view of a measurement (lib/measure/fact-ledger.ts): each listed fact's
// state must add up to the measurement's own counts, on every labelled chain, or the ledger
// and the chain page's counts would tell two stories.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { factStates, LOST, listSourceFacts, MAX_LEDGER_FACTS, RECOVERABLE, RETAINED } from "@/lib/measure/fact-ledger";
import { type MeasureFormat, measureDetailed } from "@/lib/measure/index";

interface LabelledChain {
  chain_id: string;
  format: MeasureFormat;
  required_fields?: string[];
  source: string;
  paraphrase?: string;
  passes: { content: string }[];
}

const FIXTURES = "test/fixtures/measurement";
const chains = readdirSync(FIXTURES)
  .filter((name) => name.endsWith(".json"))
  .sort()
  .flatMap((name) => (JSON.parse(readFileSync(`${FIXTURES}/${name}`, "utf8")) as { chains: LabelledChain[] }).chains);

function tally(states: Uint8Array) {
  let retained = 0;
  let recoverable = 0;
  let lost = 0;
  for (const s of states) {
    if (s === RETAINED) retained++;
    else if (s >= RECOVERABLE) recoverable++;
    else if (s === LOST) lost++;
  }
  return { retained, recoverable, lost };
}

describe("fact states add up to the measurement's counts", () => {
  it.each(chains.map((c) => [c.chain_id, c] as const))("%s", (_id, chain) => {
    const options = { source: chain.source, format: chain.format, requiredFields: chain.required_fields ?? [] };
    const listed = listSourceFacts(chain.source, chain.format);
    for (const content of [...chain.passes.map((p) => p.content), chain.paraphrase ?? "", chain.source]) {
      const measured = measureDetailed(content, options);
      const states = factStates(content, options);
      expect(states.digest).toBe(listed.digest);
      expect(states.states.length).toBe(listed.facts.length);
      expect(listed.inSource).toBe(measured.facts?.in_source);
      const { retained, recoverable, lost } = tally(states.states);
      expect({ retained, recoverable, lost }).toEqual({
        retained: measured.facts?.retained,
        recoverable: measured.facts?.recoverable,
        lost: measured.facts?.lost,
      });
    }
  });
});

describe("listSourceFacts", () => {
  const source = [
    "2026-05-02 10:00:01 INFO job 4412 started on host db-7",
    "2026-05-02 10:00:02 INFO job 4413 started on host db-7",
    "2026-05-02 10:00:05 ERROR deadlock detected on table orders, pid 8812",
    "2026-05-02 10:00:09 INFO export wrote 10,000 rows to /var/exports/orders.csv",
  ].join("\n");

  it("lists the error's facts first, by salience, each with its text and kind", () => {
    const { facts, inSource, digest } = listSourceFacts(source, "text");
    expect(facts.length).toBe(inSource);
    expect(digest).toMatch(/^[0-9a-f]{16}$/);
    for (let i = 1; i < facts.length; i++)
      expect((facts[i - 1]?.salience ?? 0) >= (facts[i]?.salience ?? 0)).toBe(true);
    expect(facts[0]?.kind).toBe("error_line");
    expect(facts[0]?.fact).toContain("deadlock detected");
    const texts = facts.map((f) => f.fact);
    expect(texts).toContain("8812");
    expect(texts).toContain("/var/exports/orders.csv");
    expect(new Set(facts.map((f) => f.key)).size).toBe(facts.length);
  });

  it("is the same list every time, in a fresh cache too", () => {
    expect(listSourceFacts(source, "text")).toEqual(listSourceFacts(source, "text"));
  });

  it(`keeps the ${MAX_LEDGER_FACTS.toLocaleString("en")} heaviest facts of a larger source`, () => {
    const big = Array.from({ length: 12_000 }, (_, i) => `order ${100000 + i} shipped to /depot/${i}`).join(". ");
    const { facts, inSource } = listSourceFacts(big, "text");
    expect(inSource).toBeGreaterThan(MAX_LEDGER_FACTS);
    expect(facts.length).toBe(MAX_LEDGER_FACTS);
  });
});

describe("factStates", () => {
  const source = "The export of 10,000 jobs to /var/exports/a.csv took 53 ms on host db-7 at 2026-05-02.";

  it("says which facts a content keeps, which an original keeps, and which neither", () => {
    const hash = "3f2a9c1d8e7b4a5c";
    const content = `Export of 10,000 jobs took 53 ms. [2 items compressed to 1. Retrieve more: hash=${hash}]`;
    const originals = new Map([[hash, "written to /var/exports/a.csv"]]);
    const listed = listSourceFacts(source, "text");
    const { states, hashes } = factStates(content, { source, format: "text", originals });
    const stateOf = (text: string) => states[listed.facts.findIndex((f) => f.fact === text)];
    expect(stateOf("10,000 jobs")).toBe(RETAINED);
    expect(stateOf("53 ms")).toBe(RETAINED);
    expect(stateOf("/var/exports/a.csv")).toBe(RECOVERABLE);
    expect(hashes).toEqual([hash]);
    expect(stateOf("2026-05-02")).toBe(LOST);
  });

  it("follows no original for a word across languages, as the measurement does", () => {
    const german =
      "Der Export der Datei ist mit dem Fehler abgebrochen, und die Tabelle wurde nicht in das Archiv geschrieben. Der Auftrag 4412 ist für den Server db-7 mit PostgreSQL und nicht für das Lager.";
    const hash = "3f2a9c1d8e7b4a5c";
    const english = `The export of the file was aborted with the error, and the table was not written to the archive. The job 4412 is for the server and not for the warehouse. [2 items compressed to 1. Retrieve more: hash=${hash}]`;
    const options = { source: german, format: "text" as const, originals: new Map([[hash, "db-7 PostgreSQL"]]) };
    const measured = measureDetailed(english, options);
    expect(measured.lost_examples).toEqual(["PostgreSQL"]);
    const listed = listSourceFacts(german, "text");
    const { states } = factStates(english, options);
    expect(states[listed.facts.findIndex((f) => f.fact === "PostgreSQL")]).toBe(LOST);
    expect(states[listed.facts.findIndex((f) => f.fact === "db-7")]).toBe(RECOVERABLE);
  });

  it("finds nothing in content that cannot be read", () => {
    const { states } = factStates("{not json", { source: '{"a": 1, "b": "x"}', format: "json" });
    expect([...states].every((s) => s === LOST)).toBe(true);
  });
});
