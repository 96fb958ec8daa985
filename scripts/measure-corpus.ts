// `npm run measure:corpus [-- [--chains] file...]`: measures every pass and adversarial case of the
// labelled corpus of real content with the current method and prints its figures per file (per label
// n/min/median/max, band errors, chains out of order, AUC of void against faithful, adversarial cases
// outside their band, and the targets of issue 40). Without files: dev.json, then held-out.json.
// `--chains` adds each chain's four scores. The held-out half is reported, never tuned on
// (docs/measurement.md, "A corpus of real content").
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { measure } from "../lib/measure/index";
import { CORPUS_LABELS, type CorpusFile, formatReport, reportOn } from "../test/support/corpus-report";

const DEFAULT_FILES = ["test/fixtures/measurement-corpus/dev.json", "test/fixtures/measurement-corpus/held-out.json"];

const { values, positionals } = parseArgs({
  options: { chains: { type: "boolean", default: false } },
  allowPositionals: true,
});

const density = (content: string, source: string, format: CorpusFile["chains"][number]["format"]) =>
  measure(content, { source, format }).semantic_density_score;

// The method is the one each measurement names, not a constant read apart from it.
console.log(`method: ${measure("", {}).method}\n`);
for (const file of positionals.length > 0 ? positionals : DEFAULT_FILES) {
  const corpus = JSON.parse(readFileSync(file, "utf8")) as CorpusFile;
  const report = reportOn(corpus, density);
  console.log(formatReport(`${path.basename(file)}: ${corpus.chains.length} chains`, report));
  if (values.chains) {
    console.log(`\n| chain | class | language | ${CORPUS_LABELS.join(" | ")} |`);
    console.log(`|---|---|---|${CORPUS_LABELS.map(() => "---").join("|")}|`);
    for (const c of report.chains) {
      const scores = CORPUS_LABELS.map((label) => c.scores[label].toFixed(4)).join(" | ");
      console.log(`| ${c.chain_id} | ${c.content_class} | ${c.language} | ${scores} |`);
    }
    console.log("\n| case | kind | expected | score |\n|---|---|---|---|");
    for (const c of report.adversarial)
      console.log(`| ${c.name} | ${c.kind} | ${c.expected} | ${c.score.toFixed(4)} |`);
  }
  console.log("");
}
