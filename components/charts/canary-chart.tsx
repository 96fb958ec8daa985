"use client";
// The chain's canary line (docs/canaries.md): the share of its planted canaries that survive
// at each pass whose survival is known, on the same pass axis as the size and density curves,
// with the class's min_canary_retention when the policy sets one.
import { CartesianGrid, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import type { CanaryPoint } from "@/lib/canaries/survival";
import type { IntegrityFinding } from "@/lib/schemas/chains";
import { ChartData } from "./chart-data";
import { FloorLabel } from "./chart-marks";

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

const percent = (share: number) => `${Math.round(share * 100)}%`;

export function CanaryChart({ points, domain, floor, findings = [], height = 180 }: CanaryChartProps) {
  const lowest = points.reduce((low, p) => Math.min(low, p.retention), 1);
  const caption = `Canary survival over ${points.length} passes whose survival is known: lowest ${percent(lowest)}${
    floor === null ? "" : `, floor ${percent(floor)}`
  }.`;
  return (
    <figure className="chart-figure">
      <figcaption className="visually-hidden">{caption}</figcaption>
      <div className="chart" data-testid="canary-chart" data-points={points.length}>
        <LineChart
          responsive
          style={{ width: "100%", height }}
          data={points}
          margin={{ top: 16, right: 16, bottom: 4, left: 8 }}
        >
          <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" />
          <XAxis
            dataKey="pass_number"
            type="number"
            domain={domain}
            allowDecimals={false}
            stroke="var(--muted)"
            tick={{ fontSize: 11, fill: "var(--muted)" }}
            height={24}
          />
          <YAxis
            type="number"
            domain={[0, 1]}
            ticks={[0, 0.5, 1]}
            tickFormatter={percent}
            stroke="var(--muted)"
            tick={{ fontSize: 11, fill: "var(--muted)" }}
            width={56}
          />
          <Tooltip
            isAnimationActive={false}
            formatter={(_value, _name, item) => {
              const p = item.payload as CanaryPoint;
              return [`${p.surviving} of ${p.planted} (${percent(p.retention)})`, "canaries surviving"];
            }}
            labelFormatter={(label) => `Pass ${label}`}
          />
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
          <Line
            type="stepAfter"
            dataKey="retention"
            stroke="var(--integrity)"
            strokeWidth={2}
            dot={{ r: 3 }}
            isAnimationActive={false}
          />
        </LineChart>
      </div>
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
