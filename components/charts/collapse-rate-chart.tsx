"use client";
// Share of the chains started in each period that have collapsed, one line per content class.
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { CollapseRatePoint } from "@/lib/chains/overview";

const COLORS = [
  "var(--series-1)",
  "var(--series-2)",
  "var(--series-3)",
  "var(--series-4)",
  "var(--series-5)",
  "var(--series-6)",
];

function formatBucket(t: number, strideSeconds: number): string {
  const iso = new Date(t).toISOString();
  return strideSeconds < 86_400 ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
}

export function CollapseRateChart({
  classes,
  points,
  strideSeconds,
}: {
  classes: string[];
  points: CollapseRatePoint[];
  strideSeconds: number;
}) {
  const firstPoint = points[0];
  const lastPoint = points.at(-1);
  if (classes.length === 0 || !firstPoint || !lastPoint) {
    return <div className="empty">No chains started in this range.</div>;
  }
  const domain: [number, number] = [firstPoint.t, lastPoint.t];
  return (
    <div className="chart" data-testid="collapse-rate-chart">
      <LineChart
        responsive
        style={{ width: "100%", height: 300 }}
        data={points}
        margin={{ top: 8, right: 16, bottom: 4, left: 0 }}
      >
        <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" />
        <XAxis
          dataKey="t"
          type="number"
          scale="time"
          domain={domain}
          tickFormatter={(t: number) => formatBucket(t, strideSeconds)}
          stroke="var(--muted)"
          tick={{ fontSize: 11, fill: "var(--muted)" }}
          minTickGap={24}
        />
        <YAxis
          domain={[0, 1]}
          ticks={[0, 0.25, 0.5, 0.75, 1]}
          tickFormatter={(v: number) => `${Math.round(v * 100)}%`}
          stroke="var(--muted)"
          tick={{ fontSize: 11, fill: "var(--muted)" }}
          width={44}
        />
        <Tooltip
          isAnimationActive={false}
          content={({ active, payload }) => {
            const point = active ? (payload?.[0]?.payload as CollapseRatePoint | undefined) : undefined;
            if (!point) return null;
            return (
              <div className="chart-tooltip">
                <strong>from {formatBucket(point.t, strideSeconds)} UTC</strong>
                {classes.map((c) =>
                  (point.started[c] ?? 0) > 0 ? (
                    <div key={c}>
                      {c}: {Math.round((point.rate[c] ?? 0) * 100)}% ({point.collapsed[c]} of {point.started[c]}{" "}
                      collapsed)
                    </div>
                  ) : null,
                )}
              </div>
            );
          }}
        />
        <Legend wrapperStyle={{ fontSize: 12 }} />
        {classes.map((c, i) => (
          <Line
            key={c}
            type="monotone"
            dataKey={(p: CollapseRatePoint) => p.rate[c]}
            name={c}
            stroke={COLORS[i % COLORS.length]}
            strokeWidth={2}
            dot={{ r: 3, fill: COLORS[i % COLORS.length], strokeWidth: 0 }}
            connectNulls
            isAnimationActive={false}
          />
        ))}
      </LineChart>
    </div>
  );
}
