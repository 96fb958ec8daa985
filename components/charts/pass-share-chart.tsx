"use client";
// A share (0 to 1) at each pass, on the chain's pass axis: the frame the canary line and the
// facts-surviving line share (docs/pages.md). Each draws its own line, tooltip and marks.
import type { ReactNode } from "react";
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";

export const percent = (share: number) => `${Math.round(share * 100)}%`;

export interface PassShareChartProps<P extends { pass_number: number }> {
  points: P[];
  /** The pass-number axis of the chain's other curves, so they line up. */
  domain: [number, number];
  /** The field of a point that holds its share. */
  dataKey: keyof P & string;
  stroke: string;
  /** Steps (a share known at some passes only) or a line. */
  step?: boolean;
  dots: boolean;
  height: number;
  testId: string;
  /** The tooltip's value and name for a point. */
  tooltip: (point: P) => [string, string];
  /** Reference lines and marks drawn under the line. */
  children?: ReactNode;
}

export function PassShareChart<P extends { pass_number: number }>({
  points,
  domain,
  dataKey,
  stroke,
  step = false,
  dots,
  height,
  testId,
  tooltip,
  children,
}: PassShareChartProps<P>) {
  return (
    <div className="chart" data-testid={testId} data-points={points.length}>
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
          formatter={(_value, _name, item) => tooltip(item.payload as P)}
          labelFormatter={(label) => `Pass ${label}`}
        />
        {children}
        <Line
          type={step ? "stepAfter" : "linear"}
          dataKey={dataKey}
          stroke={stroke}
          strokeWidth={2}
          dot={dots ? { r: 3 } : false}
          isAnimationActive={false}
        />
      </LineChart>
    </div>
  );
}
