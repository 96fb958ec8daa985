"use client";
// The chain's "facts surviving" line (docs/facts.md): at each pass measured against the chain's
// source, the share of the source's facts the pass states, on the same pass axis as the size and
// density curves. Recoverable facts (an original a marker names states them) are in the tooltip.
import { CartesianGrid, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import { FLOOR_POINT_WORDS, type FloorPoint } from "@/lib/chains/outcome";
import type { FactPoint } from "@/lib/facts/series";
import { ChartData } from "./chart-data";
import { TopLabel } from "./chart-marks";
import { type CollapseMarker, FLOOR_POINT_COLOR } from "./pass-metric-chart";

export interface FactsChartProps {
  points: FactPoint[];
  /** The pass-number axis of the chain's other curves, so they line up. */
  domain: [number, number];
  /** The chain's first floor pass, marked as the size and density curves mark it. */
  floor?: { collapse: CollapseMarker; point: FloorPoint } | null;
  height?: number;
}

const percent = (share: number) => `${Math.round(share * 100)}%`;

export function FactsChart({ points, domain, floor = null, height = 180 }: FactsChartProps) {
  const lowest = points.reduce((low, p) => Math.min(low, p.surviving), 1);
  const last = points.at(-1);
  const caption = `Facts surviving over ${points.length} measured passes: lowest ${percent(lowest)}${
    last ? `, at the last ${percent(last.surviving)}` : ""
  }.`;
  return (
    <figure className="chart-figure">
      <figcaption className="visually-hidden">{caption}</figcaption>
      <div className="chart" data-testid="facts-chart" data-points={points.length}>
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
              const p = item.payload as FactPoint;
              const recoverable = p.recoverable > 0 ? `, ${p.recoverable} recoverable` : "";
              return [`${p.retained} of ${p.in_source} (${percent(p.surviving)})${recoverable}`, "facts surviving"];
            }}
            labelFormatter={(label) => `Pass ${label}`}
          />
          {floor ? (
            <ReferenceLine
              x={floor.collapse.pass_number}
              stroke={FLOOR_POINT_COLOR[floor.point]}
              strokeWidth={2}
              label={
                <TopLabel
                  text={`${FLOOR_POINT_WORDS[floor.point].mark} · pass ${floor.collapse.pass_number}`}
                  color={FLOOR_POINT_COLOR[floor.point]}
                  testId="facts-collapse-marker"
                  title={`${FLOOR_POINT_WORDS[floor.point].meaning}: ${floor.collapse.pass_id} (${floor.collapse.verdict})`}
                />
              }
            />
          ) : null}
          <Line
            type="linear"
            dataKey="surviving"
            stroke="var(--accent)"
            strokeWidth={2}
            dot={points.length <= 60 ? { r: 3 } : false}
            isAnimationActive={false}
          />
        </LineChart>
      </div>
      <ChartData
        caption="Facts surviving by pass"
        columns={["Pass", "Stated", "Recoverable", "In source", "Surviving"]}
        rows={points.map((p) => ({
          key: p.pass_id,
          cells: [p.pass_number, p.retained, p.recoverable, p.in_source, percent(p.surviving)],
        }))}
        testId="facts-chart-data"
      />
    </figure>
  );
}
