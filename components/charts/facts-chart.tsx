"use client";
// The chain's "facts surviving" line (docs/facts.md): at each pass measured against the chain's
// source, the share of the source's facts the pass states, on the same pass axis as the size and
// density curves. Recoverable facts (an original a marker names states them) are in the tooltip.
import { ReferenceLine } from "recharts";
import { FLOOR_POINT_WORDS, type FloorPoint } from "@/lib/chains/outcome";
import type { FactPoint } from "@/lib/facts/series";
import { ChartData } from "./chart-data";
import { TopLabel } from "./chart-marks";
import { PassShareChart, percent } from "./pass-share-chart";
import { type CollapseMarker, FLOOR_POINT_COLOR } from "./pass-metric-chart";

export interface FactsChartProps {
  points: FactPoint[];
  /** The pass-number axis of the chain's other curves, so they line up. */
  domain: [number, number];
  /** The chain's first floor pass, marked as the size and density curves mark it. */
  floor?: { collapse: CollapseMarker; point: FloorPoint } | null;
  height?: number;
}

export function FactsChart({ points, domain, floor = null, height = 180 }: FactsChartProps) {
  const lowest = points.reduce((low, p) => Math.min(low, p.surviving), 1);
  const last = points.at(-1);
  const caption = `Facts surviving over ${points.length} measured passes: lowest ${percent(lowest)}${
    last ? `, at the last ${percent(last.surviving)}` : ""
  }.`;
  return (
    <figure className="chart-figure">
      <figcaption className="visually-hidden">{caption}</figcaption>
      <PassShareChart
        points={points}
        domain={domain}
        dataKey="surviving"
        stroke="var(--accent)"
        dots={points.length <= 60}
        height={height}
        testId="facts-chart"
        tooltip={(p) => {
          const recoverable = p.recoverable > 0 ? `, ${p.recoverable} recoverable` : "";
          return [`${p.retained} of ${p.in_source} (${percent(p.surviving)})${recoverable}`, "facts surviving"];
        }}
      >
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
      </PassShareChart>
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
