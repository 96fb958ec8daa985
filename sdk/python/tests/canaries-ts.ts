// The TypeScript canaries as the cross-language test runs them (test_canaries_cross.py): cases as
// a JSON array on stdin; each case's planting (or its error) and a check of the planted content
// and of a cut-down copy, as a JSON array on stdout.
import { readFileSync } from "node:fs";
import { checkCanaries, type PlantFormat, plantCanaries } from "../../../lib/canaries/canaries";
import { Floorline } from "../../typescript/src/index";

interface Case {
  content: string;
  count: number;
  seed: string;
  start?: number;
  format?: PlantFormat;
  /** Text the check reads besides the planted content. */
  check?: string;
}

/** A chain that plants, records passes (each checked), and sends a check of other text in place of one. */
interface ChainCase {
  id: string;
  content: string;
  count: number;
  outputs: string[];
  /** Text checked and sent in place of the last output's own check. */
  instead: string;
}

const { cases, chain: given } = JSON.parse(readFileSync(0, "utf8")) as { cases: Case[]; chain: ChainCase };
const fl = new Floorline({
  url: "http://127.0.0.1:9",
  flushOnExit: false,
  policies: { notes: { min_size_bytes: 1, min_semantic_density: 0.01, max_pass_number: 100 } },
  clock: () => new Date("2026-03-01T00:00:00.000Z"),
});
const chain = fl.chain(given.id, { contentClass: "notes" });
let input = chain.plantCanaries(given.content, { count: given.count });
const receipts = given.outputs.map((output, i) => {
  const last = i === given.outputs.length - 1;
  // A claimed density: the measurement is held equal across the SDKs by its own test.
  const pass = chain.recordPass(input, output, {
    density: 0.9,
    ...(last ? { canaryCheck: chain.checkCanaries(given.instead) } : {}),
  });
  input = pass.output;
  return pass.receipt;
});
const answers = cases.map((c) => {
  try {
    const planted = plantCanaries(c.content, { count: c.count, seed: c.seed, start: c.start, format: c.format });
    return {
      ...planted,
      check: checkCanaries(planted.content, planted.canaries),
      check_other: checkCanaries(c.check ?? "", planted.canaries),
    };
  } catch (error) {
    return { error: (error as Error).constructor.name };
  }
});
// The client's timers would keep the process alive: exit once the answer is written.
process.stdout.write(JSON.stringify({ answers, planted: chain.canaries, receipts }), () => process.exit(0));
