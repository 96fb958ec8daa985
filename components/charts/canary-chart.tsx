"use client";
// The chain's canary line (docs/canaries.md): the share of its planted canaries that survive
// at each pass whose survival is known, on the same pass axis as the size and density curves,
// with the class's min_canary_retention when the policy sets one.
import { ReferenceLine } from "recharts";
import type { CanaryPoint } from "@/lib/canaries/survival";
import type { IntegrityFinding } from "@/lib/schemas/chains";
import { ChartData } from "./chart-data";
import { FloorLabel } from "./chart-marks";
import { PassShareChart, percent } from "./pass-share-chart";

export interface CanaryChartProps {
  points: CanaryPoint[];
  /** The pass-number axis of the chain's other curves, so the three line up. */
  domain: [number, number];
  floor: number | null;
  /** The chain's canary_lost findings, listed under the line. */
  findings?: IntegrityFinding[];
  height?: number;
}

/** Findings listed at most; the chain's API answer has them all. */
const LISTED = 20;

export function CanaryChart({ points, domain, floor, findings = [], height = 180 }: CanaryChartProps) {
  const lowest = points.reduce((low, p) => Math.min(low, p.retention), 1);
  const caption = `Canary survival over ${points.length} passes whose survival is known: lowest ${percent(lowest)}${
    floor === null ? "" : `, floor ${percent(floor)}`
  }.`;
  return (
    <figure className="chart-figure">
      <figcaption className="visually-hidden">{caption}</figcaption>
      <PassShareChart
        points={points}
        domain={domain}
        dataKey="retention"
        stroke="var(--integrity)"
        step
        dots
        height={height}
        testId="canary-chart"
        tooltip={(p) => [`${p.surviving} of ${p.planted} (${percent(p.retention)})`, "canaries surviving"]}
      >
        {floor === null ? null : (
          <ReferenceLine
            y={floor}
            stroke="var(--danger)"
            strokeDasharray="4 3"
            label={
              <FloorLabel text={`floor ${percent(floor)}`} testId="canary-floor" color="var(--danger)" side="start" />
            }
          />
        )}
      </PassShareChart>
      <ChartData
        caption="Canary survival by pass"
        columns={["Pass", "Surviving", "Planted", "Retention"]}
        rows={points.map((p) => ({
          key: p.pass_id,
          cells: [p.pass_number, p.surviving, p.planted, percent(p.retention)],
        }))}
        testId="canary-chart-data"
      />
      {findings.length > 0 ? (
        <ul className="muted small" data-testid="canary-findings">
          {findings.slice(0, LISTED).map((f) => (
            <li key={`${f.pass_id}-${f.detail}`}>{f.detail}</li>
          ))}
          {findings.length > LISTED ? (
            <li>and {findings.length - LISTED} more (the chain API lists them all)</li>
          ) : null}
        </ul>
      ) : null}
    </figure>
  );
}
