import type { OverviewFigures } from "@/lib/chains/overview";
import { formatCount } from "@/lib/format";
import { chainsHref } from "@/lib/routes";

interface Figure {
  key: keyof OverviewFigures;
  label: string;
  hint: string;
  href?: string;
  tone?: "alert" | "caution";
}

const FIGURES: Figure[] = [
  { key: "chains", label: "Chains", hint: "with receipts in the range", href: chainsHref() },
  { key: "passes", label: "Passes", hint: "receipts received", href: chainsHref({ sort: "pass_count" }) },
  {
    key: "chains_collapsed",
    label: "Chains collapsed",
    hint: "collapse point in the range",
    href: chainsHref({ status: "collapse_imminent" }),
    tone: "alert",
  },
  {
    key: "floor_breaches",
    label: "Floor breaches",
    hint: "passes unparseable or schema-invalid",
    href: chainsHref({ status: "floor_breached" }),
    tone: "alert",
  },
  {
    key: "client_mismatches",
    label: "Client/server mismatches",
    hint: "agent's guard disagreed",
    href: chainsHref({ status: "client_mismatch" }),
    tone: "caution",
  },
  {
    key: "integrity_findings",
    label: "Integrity findings",
    hint: "missing, repeated or unchained passes",
    href: chainsHref({ status: "broken_integrity" }),
    tone: "caution",
  },
];

/** The headline figures; each opens the chains it counts. */
export function Figures({ figures }: { figures: OverviewFigures }) {
  return (
    <section className="figures" aria-label="Headline figures">
      {FIGURES.map((f) => {
        const value = figures[f.key];
        return (
          <a
            key={f.key}
            href={f.href}
            className={`figure ${value > 0 && f.tone ? f.tone : ""}`}
            data-testid={`figure-${f.key}`}
          >
            <div className="value">{formatCount(value)}</div>
            <div className="label">{f.label}</div>
            <div className="hint">{f.hint}</div>
          </a>
        );
      })}
    </section>
  );
}
