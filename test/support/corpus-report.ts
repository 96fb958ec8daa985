// The figures of the labelled corpus of real content (test/fixtures/measurement-corpus; docs/measurement.md,
// "A corpus of real content"): each pass measured, then per label the spread of the scores, the passes
// outside their label's band, the chains whose order is wrong, how well the scores tell void from faithful
// (AUC) and the adversarial cases outside their expected band. Pure: the measurement is passed in, so the
// statistics are tested on numbers made by hand (test/unit/measure/corpus-report.test.ts).
import type { MeasureFormat } from "../../lib/measure/index";

export const CORPUS_LABELS = ["faithful", "moderately_lossy", "severely_lossy", "void"] as const;
export type CorpusLabel = (typeof CORPUS_LABELS)[number];
/** The bands a pass or an adversarial case is held to; a severely lossy pass has none. */
export type Band = "faithful" | "moderately_lossy" | "void";

export interface CorpusChain {
  chain_id: string;
  content_class: string;
  format: MeasureFormat;
  language: string;
  origin: string;
  source: string;
  passes: { label: CorpusLabel; content: string }[];
}

export interface AdversarialCase {
  name: string;
  kind: string;
  format: MeasureFormat;
  origin: string;
  source: string;
  content: string;
  expected: Band;
  why: string;
}

export interface CorpusFile {
  about: string;
  chains: CorpusChain[];
  adversarial: AdversarialCase[];
}

/** The density of `content` against `source`, read in `format` (lib/measure's measure, in the script). */
export type DensityFn = (content: string, source: string, format: MeasureFormat) => number;

/** Faithful at 0.6 or more, void at 0.2 or less, moderately lossy strictly between 0.2 and 0.8. */
export function inBand(band: Band, score: number): boolean {
  if (band === "faithful") return score >= 0.6;
  if (band === "void") return score <= 0.2;
  return score > 0.2 && score < 0.8;
}

export interface Spread {
  n: number;
  min: number;
  median: number;
  max: number;
}

/** The middle value, or the mean of the two middle values for an even count; NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function spread(values: readonly number[]): Spread {
  return {
    n: values.length,
    min: values.length ? Math.min(...values) : Number.NaN,
    median: median(values),
    max: values.length ? Math.max(...values) : Number.NaN,
  };
}

/**
 * The area under the ROC curve of the scores as a test for "high" against "low": the chance that a
 * high-labelled score drawn at random is above a low-labelled one, a tie counting half (the
 * Mann-Whitney statistic over all pairs). 1 separates them fully, 0.5 is chance. NaN without pairs.
 */
export function auc(high: readonly number[], low: readonly number[]): number {
  if (high.length === 0 || low.length === 0) return Number.NaN;
  let wins = 0;
  for (const h of high) {
    for (const l of low) {
      if (h > l) wins += 1;
      else if (h === l) wins += 0.5;
    }
  }
  return wins / (high.length * low.length);
}

export interface ScoredChain {
  chain_id: string;
  content_class: string;
  language: string;
  scores: Record<CorpusLabel, number>;
}

/** Within a chain, faithful must score above moderately lossy, and moderately lossy above void. */
export function inOrder(scores: Record<CorpusLabel, number>): boolean {
  return scores.faithful > scores.moderately_lossy && scores.moderately_lossy > scores.void;
}

export interface BandErrors {
  /** Passes of the label outside its band, of `n`. */
  errors: number;
  n: number;
}

export interface ScoredCase {
  name: string;
  kind: string;
  expected: Band;
  score: number;
  inBand: boolean;
}

export interface HalfReport {
  chains: ScoredChain[];
  perLabel: Record<CorpusLabel, Spread>;
  bandErrors: Record<Band, BandErrors>;
  outOfOrder: ScoredChain[];
  aucVoidFaithful: number;
  adversarial: ScoredCase[];
}

/** Scores every pass and adversarial case of a corpus file and gathers the figures. */
export function reportOn(file: CorpusFile, density: DensityFn): HalfReport {
  const chains: ScoredChain[] = file.chains.map((chain) => {
    const scores = {} as Record<CorpusLabel, number>;
    for (const pass of chain.passes) scores[pass.label] = density(pass.content, chain.source, chain.format);
    return { chain_id: chain.chain_id, content_class: chain.content_class, language: chain.language, scores };
  });
  const of = (label: CorpusLabel) => chains.map((c) => c.scores[label]);
  const perLabel = Object.fromEntries(CORPUS_LABELS.map((label) => [label, spread(of(label))])) as Record<
    CorpusLabel,
    Spread
  >;
  const bands: Band[] = ["faithful", "moderately_lossy", "void"];
  const bandErrors = Object.fromEntries(
    bands.map((band) => [band, { errors: of(band).filter((s) => !inBand(band, s)).length, n: chains.length }]),
  ) as Record<Band, BandErrors>;
  const adversarial = file.adversarial.map((c) => {
    const score = density(c.content, c.source, c.format);
    return { name: c.name, kind: c.kind, expected: c.expected, score, inBand: inBand(c.expected, score) };
  });
  return {
    chains,
    perLabel,
    bandErrors,
    outOfOrder: chains.filter((c) => !inOrder(c.scores)),
    aucVoidFaithful: auc(of("faithful"), of("void")),
    adversarial,
  };
}

export interface Target {
  what: string;
  value: string;
  met: boolean;
}

const share = (e: BandErrors) => (e.n === 0 ? Number.NaN : (e.n - e.errors) / e.n);
const percent = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The targets of issue 40, each with the half's value and whether it is met. */
export function targets(report: HalfReport): Target[] {
  const outside = report.adversarial.filter((c) => !c.inBand).length;
  const cases = report.adversarial.length;
  return [
    {
      what: "faithful >= 0.6 in >= 90% of passes",
      value: percent(share(report.bandErrors.faithful)),
      met: share(report.bandErrors.faithful) >= 0.9,
    },
    {
      what: "void <= 0.2 in >= 97% of passes",
      value: percent(share(report.bandErrors.void)),
      met: share(report.bandErrors.void) >= 0.97,
    },
    {
      what: "moderately lossy in (0.2, 0.8) in >= 70% of passes",
      value: percent(share(report.bandErrors.moderately_lossy)),
      met: share(report.bandErrors.moderately_lossy) >= 0.7,
    },
    {
      what: "faithful > moderately lossy > void in every chain",
      value: `${report.chains.length - report.outOfOrder.length} of ${report.chains.length}`,
      met: report.outOfOrder.length === 0,
    },
    {
      what: "AUC(void vs faithful) >= 0.99",
      value: report.aucVoidFaithful.toFixed(4),
      met: report.aucVoidFaithful >= 0.99,
    },
    {
      what: "adversarial: at most one in five outside its band",
      value: `${outside} of ${cases}`,
      met: outside * 5 <= cases,
    },
  ];
}

const fixed = (x: number) => x.toFixed(4);

/** The report as plain text: a Markdown table per label, then the errors, the order, the AUC and the cases. */
export function formatReport(title: string, report: HalfReport): string {
  const lines = [`## ${title}`, "", "| label | n | min | median | max |", "|---|---|---|---|---|"];
  for (const label of CORPUS_LABELS) {
    const s = report.perLabel[label];
    lines.push(`| ${label} | ${s.n} | ${fixed(s.min)} | ${fixed(s.median)} | ${fixed(s.max)} |`);
  }
  const e = report.bandErrors;
  lines.push(
    "",
    `band errors: faithful < 0.6: ${e.faithful.errors} of ${e.faithful.n}; void > 0.2: ${e.void.errors} of ${e.void.n}; ` +
      `moderately lossy outside (0.2, 0.8): ${e.moderately_lossy.errors} of ${e.moderately_lossy.n}`,
    `AUC(void vs faithful): ${fixed(report.aucVoidFaithful)}`,
    `chains out of order (faithful > moderately lossy > void): ${report.outOfOrder.length} of ${report.chains.length}`,
  );
  for (const c of report.outOfOrder) {
    const s = c.scores;
    lines.push(
      `  ${c.chain_id}: faithful ${fixed(s.faithful)}, moderately ${fixed(s.moderately_lossy)}, void ${fixed(s.void)}`,
    );
  }
  const outside = report.adversarial.filter((c) => !c.inBand);
  lines.push(`adversarial outside their band: ${outside.length} of ${report.adversarial.length}`);
  for (const c of outside) lines.push(`  ${c.kind} (expected ${c.expected}): ${fixed(c.score)}, ${c.name}`);
  lines.push("", "targets:");
  for (const t of targets(report)) lines.push(`  ${t.met ? "met   " : "missed"} ${t.what}: ${t.value}`);
  return lines.join("\n");
}
