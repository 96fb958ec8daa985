"use client";
// Share of the chains started in each period that have collapsed, per content class. With
// few periods holding data, grouped bars with their percentages (the counts, under ten chains) (a line over three points at
// the right edge reads as a column of dots, one class hiding another); with many, lines that
// break where a period had no chains of the class.
import { Bar, BarChart, CartesianGrid, LabelList, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { CollapseRatePoint } from "@/lib/chains/overview";
import { classColorSlots, FEW_PERIODS } from "@/lib/chart-domain";
import { ChartData } from "./chart-data";

function formatBucket(t: number, strideSeconds: number): string {
  const iso = new Date(t).toISOString();
  return strideSeconds < 86_400 ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
}

const percent = (v: number | null | undefined) => (v === null || v === undefined ? "" : `${Math.round(v * 100)}%`);

/** Below this many chains started, a bar says how many collapsed of how many, not a percentage. */
const FEW_CHAINS = 10;

/** A bar's label: its share, or for a handful of chains the counts ("1/1": one of one, not "100%"). */
function barLabel(point: CollapseRatePoint | undefined, c: string): string {
  const started = point?.started[c] ?? 0;
  if (!point || started === 0) return "";
  return started < FEW_CHAINS ? `${point.collapsed[c] ?? 0}/${started}` : percent(point.rate[c]);
}

const tick = { fontSize: 11, fill: "var(--muted)" };

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
  const slots = classColorSlots(classes);
  const color = (c: string) => `var(--series-${slots[c]})`;
  const withData = points.filter((p) => classes.some((c) => (p.started[c] ?? 0) > 0));
  const bars = withData.length <= FEW_PERIODS;
  const domain: [number, number] = [firstPoint.t, lastPoint.t];
  /** Chains of class `c` started in the range: the n of its shares. */
  const startedIn = (c: string) => withData.reduce((n, p) => n + (p.started[c] ?? 0), 0);
  const summary = `Collapse rate per content class, ${withData.length} ${withData.length === 1 ? "period" : "periods"} with chains started: ${classes
    .map((c) => {
      const started = startedIn(c);
      const collapsed = withData.reduce((n, p) => n + (p.collapsed[c] ?? 0), 0);
      return `${c} ${collapsed} of ${started} collapsed`;
    })
    .join("; ")}.`;

  const tooltip = (
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
                  {c}: {percent(point.rate[c])} ({point.collapsed[c]} of {point.started[c]} collapsed)
                </div>
              ) : null,
            )}
          </div>
        );
      }}
    />
  );
  // Legend text in the text colour: the series colours are for lines, too light for words. Each
  // class says its n, the chains started in the range: a share of three chains is not one of 300.
  const legend = (
    <Legend
      wrapperStyle={{ fontSize: 12 }}
      formatter={(value: string) => (
        <>
          <span className="legend-text">{value}</span>
          <span className="legend-n"> (n = {startedIn(value)})</span>
        </>
      )}
    />
  );
  const yAxis = (
    <YAxis
      domain={[0, 1]}
      ticks={[0, 0.25, 0.5, 0.75, 1]}
      tickFormatter={(v: number) => `${Math.round(v * 100)}%`}
      stroke="var(--muted)"
      tick={tick}
      width={44}
    />
  );

  return (
    <figure className="chart-figure">
      <figcaption className="visually-hidden">{summary}</figcaption>
      <div className="chart" data-testid="collapse-rate-chart" data-kind={bars ? "bars" : "lines"}>
        {bars ? (
          <BarChart
            responsive
            style={{ width: "100%", height: 300 }}
            data={withData}
            margin={{ top: 18, right: 16, bottom: 4, left: 0 }}
            barCategoryGap="20%"
          >
            <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" vertical={false} />
            <XAxis
              dataKey="t"
              type="category"
              tickFormatter={(t: number) => formatBucket(t, strideSeconds)}
              stroke="var(--muted)"
              tick={tick}
            />
            {yAxis}
            {tooltip}
            {legend}
            {classes.map((c) => (
              <Bar
                key={c}
                dataKey={(p: CollapseRatePoint) => p.rate[c]}
                name={c}
                fill={color(c)}
                minPointSize={2}
                isAnimationActive={false}
              >
                <LabelList
                  position="top"
                  fontSize={11}
                  fill="var(--text)"
                  valueAccessor={(entry: { payload?: CollapseRatePoint }) => barLabel(entry.payload, c)}
                />
              </Bar>
            ))}
          </BarChart>
        ) : (
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
              tick={tick}
              minTickGap={24}
            />
            {yAxis}
            {tooltip}
            {legend}
            {classes.map((c) => (
              <Line
                key={c}
                type="linear"
                dataKey={(p: CollapseRatePoint) => p.rate[c]}
                name={c}
                stroke={color(c)}
                strokeWidth={2}
                dot={{ r: 3, fill: color(c), strokeWidth: 0 }}
                connectNulls={false}
                isAnimationActive={false}
              />
            ))}
          </LineChart>
        )}
      </div>
      <ChartData
        caption="Collapse rate per period and content class"
        testId="collapse-rate-data"
        columns={["Period (UTC)", ...classes.map((c) => `${c}: collapsed of started`)]}
        rows={withData.map((p) => ({
          key: String(p.t),
          cells: [
            formatBucket(p.t, strideSeconds),
            ...classes.map((c) =>
              (p.started[c] ?? 0) > 0 ? `${percent(p.rate[c])} (${p.collapsed[c]} of ${p.started[c]})` : "none started",
            ),
          ],
        }))}
      />
    </figure>
  );
}
