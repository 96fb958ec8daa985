import { OVERVIEW_FIGURE_STATUS, type OverviewFigures, type RangeKey } from "@/lib/chains/overview";
import { formatCount } from "@/lib/format";
import { chainsHref } from "@/lib/routes";

interface Figure {
  key: keyof OverviewFigures;
  label: string;
  hint: string;
  tone?: "alert" | "caution" | "saved";
}

const FIGURES: Figure[] = [
  { key: "chains", label: "Chains", hint: "with a receipt made or received in the range" },
  { key: "passes", label: "Passes", hint: "receipts dated in the range (their created_at)" },
  {
    key: "chains_collapsed",
    label: "Chains collapsed",
    hint: "went past a floor: on after a HALT or with no boundary, or a restore ignored",
    tone: "alert",
  },
  {
    key: "chains_guarded",
    label: "Chains guarded",
    hint: "the guard reached a floor and the agent halted, restored or accepted the loss",
    tone: "saved",
  },
  {
    key: "chains_floor_breached",
    label: "Chains with a floor breach",
    hint: "a pass unparseable or schema-invalid, saved or not",
    tone: "caution",
  },
  {
    key: "chains_continued_after_halt",
    label: "Chains that ignored a HALT",
    hint: "passes sent after a halt",
    tone: "alert",
  },
  {
    key: "chains_restore_not_honoured",
    label: "Chains that ignored a restore",
    hint: "next pass not from the restored one",
    tone: "alert",
  },
  {
    key: "chains_client_mismatch",
    label: "Chains with client mismatches",
    hint: "agent's guard disagreed",
    tone: "caution",
  },
  {
    key: "chains_measurement_mismatch",
    label: "Chains with measurement mismatches",
    hint: "measured density disagrees with the claim",
    tone: "caution",
  },
  {
    key: "chains_broken_integrity",
    label: "Chains with integrity findings",
    hint: "missing, repeated, unchained or disobeying passes",
    tone: "caution",
  },
];

/** Where a figure leads: the chains list filtered to exactly the chains it counts (none for passes). */
export function figureHref(key: keyof OverviewFigures, range: RangeKey): string | undefined {
  if (key === "passes") return undefined;
  const status = OVERVIEW_FIGURE_STATUS[key];
  return chainsHref({ status, range: range === "all" ? undefined : range });
}

/** The headline figures; each chain figure opens the chains it counts, in the same range. */
export function Figures({
  figures,
  range,
  children,
}: {
  figures: OverviewFigures;
  range: RangeKey;
  /** Figures of other kinds (traces), drawn after the chain figures in the same grid. */
  children?: React.ReactNode;
}) {
  return (
    <section className="figures" aria-label="Headline figures">
      {FIGURES.map((f) => {
        const value = figures[f.key];
        const href = figureHref(f.key, range);
        const body = (
          <>
            <div className="value">{formatCount(value)}</div>
            <div className="label">{f.label}</div>
            <div className="hint">{f.hint}</div>
          </>
        );
        const className = `figure ${value > 0 && f.tone ? f.tone : ""}`;
        return href ? (
          <a key={f.key} href={href} className={className} data-testid={`figure-${f.key}`}>
            {body}
          </a>
        ) : (
          <div key={f.key} className={className} data-testid={`figure-${f.key}`}>
            {body}
          </div>
        );
      })}
      {children}
    </section>
  );
}
