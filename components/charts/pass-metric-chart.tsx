"use client";
// One curve of a chain over pass number (size or semantic density) with everything an
// operator needs to read it in place: the floor of the policy version that judged each
// stretch, the max-pass limit, the collapse point, boundary receipts, integrity findings,
// client/server mismatches and, for density, the measured density beside the claimed one.
// Props arrive shaped and downsampled by the server. Longer than most files: recharts draws
// only marks that are direct children of the one LineChart, so they cannot move to components.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { Brush, CartesianGrid, Line, LineChart, ReferenceDot, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import type { BoundaryWire } from "@/lib/schemas/boundaries";
import type { IntegrityFinding } from "@/lib/schemas/chains";
import type { FloorSpan, Mismatch, SeriesPoint } from "@/lib/chains/series";
import {
  BRUSH_MIN_POINTS,
  floorAt,
  type GapRow,
  isGap,
  LOG_AXIS_MIN,
  logDomain,
  logTicks,
  passDomain,
  withGaps,
} from "@/lib/chart-domain";
import { FLOOR_POINT_WORDS, type FloorPoint } from "@/lib/chains/outcome";
import { formatBytes, formatKind } from "@/lib/format";
import { ChartData } from "./chart-data";
import { type Metric, PassTooltip } from "./pass-tooltip";
import { BottomLabel, Diamond, FloorLabel, MeasuredGap, Square, TopLabel, Triangle } from "./chart-marks";

export interface CollapseMarker {
  pass_id: string;
  pass_number: number;
  verdict: string;
}

export interface CandidateOverlay {
  min_size_bytes: number;
  min_semantic_density: number;
  max_pass_number: number;
  collapse_pass_number: number | null;
}

export interface PassMetricChartProps {
  metric: Metric;
  points: SeriesPoint[];
  floors: FloorSpan[];
  collapse: CollapseMarker | null;
  /** What the collapse point was: the marker says a save, a collapse or a floor not yet answered. */
  floorPoint: FloorPoint;
  boundaries: Pick<BoundaryWire, "pass_number" | "strategy" | "reason">[];
  findings: IntegrityFinding[];
  mismatches: Mismatch[];
  selectedPassId?: string | null;
  candidate?: CandidateOverlay | null;
  height?: number;
}

const METRIC = {
  size: {
    title: "Size",
    value: (p: SeriesPoint) => Math.max(p.size, LOG_AXIS_MIN),
    floor: (f: FloorSpan) => f.min_size_bytes,
  },
  density: {
    title: "Semantic density",
    value: (p: SeriesPoint) => p.density,
    floor: (f: FloorSpan) => f.min_semantic_density,
  },
} as const;

export const FLOOR_POINT_COLOR: Record<FloorPoint, string> = {
  guarded: "var(--safe)",
  collapsed: "var(--danger)",
  unanswered: "var(--warn)",
};

const BOUNDARY_LABEL: Record<BoundaryWire["strategy"], string> = {
  halt: "halt",
  restore: "restore",
  accept_loss: "accept loss",
};
const BOUNDARY_COLOR: Record<BoundaryWire["strategy"], string> = {
  halt: "var(--boundary-halt)",
  restore: "var(--boundary-restore)",
  accept_loss: "var(--boundary-accept)",
};

function formatValue(metric: Metric, value: number): string {
  return metric === "size" ? formatBytes(value) : value.toFixed(3);
}

interface BrushRange {
  startIndex: number;
  endIndex: number;
}

export function PassMetricChart(props: PassMetricChartProps) {
  const {
    metric,
    points,
    floors,
    collapse,
    floorPoint,
    boundaries,
    findings,
    mismatches,
    selectedPassId,
    candidate,
    height = 260,
  } = props;
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const [zoom, setZoom] = useState<BrushRange | null>(null);
  // The brush is uncontrolled while dragging (feeding the range back in fights the drag), so it
  // is remounted to move it: at both ends for "Show all", and back to the zoomed stretch when a
  // live update brings new data (the brush would otherwise start over at full range).
  const [brushMount, setBrushMount] = useState<{ key: number; range: BrushRange | null }>({ key: 0, range: null });
  const zoomRef = useRef(zoom);
  zoomRef.current = zoom;
  const m = METRIC[metric];
  // Missing passes break the line: a value-less row sits in each gap. Kept stable across
  // renders: the brush starts over whenever its data changes identity.
  const rows = useMemo(
    () =>
      withGaps(
        points,
        findings.filter((f) => f.kind === "missing_pass").map((f) => f.pass_number),
      ),
    [points, findings],
  );
  const mountedRows = useRef(rows);
  useEffect(() => {
    if (mountedRows.current === rows) return;
    mountedRows.current = rows;
    const kept = zoomRef.current;
    if (kept && kept.endIndex < rows.length) setBrushMount((m) => ({ key: m.key + 1, range: kept }));
  }, [rows]);

  const firstPoint = points[0];
  const lastPoint = points.at(-1);
  if (!firstPoint || !lastPoint) return <div className="empty">No passes yet.</div>;

  const brush = points.length > BRUSH_MIN_POINTS;
  const shownFirst = (zoom && rows[zoom.startIndex]?.pass_number) ?? firstPoint.pass_number;
  const shownLast = (zoom && rows[zoom.endIndex]?.pass_number) ?? lastPoint.pass_number;
  const first = Math.floor(shownFirst);
  const last = Math.ceil(shownLast);
  const limits = [...floors.map((f) => f.max_pass_number), ...(candidate ? [candidate.max_pass_number] : [])];
  const x = passDomain(first, last, limits);
  const floorOf = (p: SeriesPoint) => {
    const f = floorAt(floors, p.pass_number);
    return f ? m.floor(f) : null;
  };
  const underFloor = (p: SeriesPoint) => {
    const floor = floorOf(p);
    return floor !== null && (metric === "size" ? p.size : p.density) < floor;
  };
  const floorValues = floors.map(m.floor);
  const candidateFloor = candidate
    ? metric === "size"
      ? candidate.min_size_bytes
      : candidate.min_semantic_density
    : null;
  const yDomain: [number, number] =
    metric === "size"
      ? logDomain([...points.map(m.value), ...floorValues, ...(candidateFloor !== null ? [candidateFloor] : [])])
      : [0, 1];
  const valueAt = new Map(points.map((p) => [p.pass_number, m.value(p)]));
  const selected = selectedPassId ? points.find((p) => p.pass_id === selectedPassId) : undefined;
  const showDots = points.length <= 120;

  function openPass(index: number | undefined) {
    const point = index === undefined ? undefined : rows[index];
    if (!point || isGap(point)) return;
    const params = new URLSearchParams(searchParams.toString());
    params.set("pass", point.pass_id);
    params.delete("after");
    params.delete("before");
    params.set("from", String(point.pass_number));
    router.push(`${pathname}?${params.toString()}`, { scroll: false });
  }

  const underCount = points.filter(underFloor).length;
  // The density Floorline measured, beside the claimed one, where it measured any pass.
  const measuredDrawn = metric === "density" && points.some((p) => p.measured_density !== null);
  const measuredGaps =
    metric === "density" ? points.filter((p) => p.measurement_mismatch && p.measured_density !== null) : [];
  const measuredUnder = measuredDrawn
    ? points.filter((p) => {
        const floor = floorOf(p);
        return p.measured_density !== null && floor !== null && p.measured_density < floor;
      }).length
    : 0;
  const caption = `${m.title} over pass number, passes ${firstPoint.pass_number} to ${lastPoint.pass_number} (${points.length} drawn)${
    collapse ? `, ${FLOOR_POINT_WORDS[floorPoint].at} pass ${collapse.pass_number}` : ", no floor reached"
  }${underCount > 0 ? `, ${underCount} under the floor` : ""}${
    measuredDrawn
      ? `; measured density drawn beside the claimed one, ${measuredUnder} measured under the floor, ${measuredGaps.length} where the two disagree`
      : ""
  }.`;

  return (
    <figure className="chart-figure">
      <figcaption className="visually-hidden">{caption}</figcaption>
      <div
        className="chart"
        data-testid={`${metric}-chart`}
        data-points={points.length}
        data-measured-points={measuredDrawn ? points.filter((p) => p.measured_density !== null).length : undefined}
      >
        <LineChart
          responsive
          style={{ width: "100%", height: brush ? height + 36 : height }}
          data={rows}
          margin={{ top: 34, right: 16, bottom: 4, left: 8 }}
          onClick={(state) =>
            openPass(typeof state.activeIndex === "number" ? state.activeIndex : Number(state.activeIndex ?? NaN))
          }
        >
          <CartesianGrid stroke="var(--grid)" strokeDasharray="2 4" />
          <XAxis
            dataKey="pass_number"
            type="number"
            domain={x.domain}
            allowDecimals={false}
            stroke="var(--muted)"
            tick={{ fontSize: 11, fill: "var(--muted)" }}
            label={{
              value: "pass number",
              position: "insideBottomRight",
              offset: -2,
              fontSize: 11,
              fill: "var(--muted)",
            }}
            height={34}
          />
          <YAxis
            type="number"
            scale={metric === "size" ? "log" : "linear"}
            domain={yDomain}
            ticks={metric === "size" ? logTicks(yDomain) : [0, 0.25, 0.5, 0.75, 1]}
            tickFormatter={(v: number) => (metric === "size" ? formatBytes(v) : v.toFixed(2))}
            allowDataOverflow
            stroke="var(--muted)"
            tick={{ fontSize: 11, fill: "var(--muted)" }}
            width={56}
          />
          <Tooltip
            content={(p) => <PassTooltip active={p.active} payload={p.payload} metric={metric} />}
            isAnimationActive={false}
          />

          {floors.map((f, i) => {
            const to = floors[i + 1]?.from ?? x.domain[1];
            const from = f.from === to ? f.from - 0.5 : f.from;
            const text = `floor ${formatValue(metric, m.floor(f))}${floors.length > 1 || f.policy_version > 0 ? ` (v${f.policy_version})` : " (default)"}`;
            return (
              <ReferenceLine
                key={`floor-${f.policy_version}-${f.from}`}
                segment={[
                  { x: from, y: m.floor(f) },
                  { x: to, y: m.floor(f) },
                ]}
                stroke="var(--danger)"
                strokeDasharray="6 4"
                strokeWidth={1.5}
                ifOverflow="visible"
                label={<FloorLabel text={text} testId={`${metric}-floor`} color="var(--danger)" side="start" />}
              />
            );
          })}
          {candidateFloor !== null ? (
            <ReferenceLine
              y={candidateFloor}
              stroke="var(--accent)"
              strokeDasharray="2 3"
              strokeWidth={2}
              ifOverflow="extendDomain"
              label={
                <FloorLabel
                  text={`candidate ${formatValue(metric, candidateFloor)}`}
                  testId={`${metric}-candidate-floor`}
                  color="var(--accent)"
                  side="end"
                  strong
                />
              }
            />
          ) : null}
          {x.limits.map((limit) => (
            <ReferenceLine
              key={`limit-${limit}`}
              x={limit + 0.5}
              stroke="var(--muted)"
              strokeDasharray="3 3"
              label={
                <BottomLabel
                  text={`max pass ${limit}`}
                  color="var(--muted)"
                  testId={`${metric}-max-pass`}
                  title={`Passes after ${limit} exceed max_pass_number`}
                />
              }
            />
          ))}
          {boundaries.map((b) => (
            <ReferenceLine
              key={`boundary-${b.pass_number}`}
              x={b.pass_number}
              stroke={BOUNDARY_COLOR[b.strategy]}
              strokeWidth={2}
              strokeDasharray="1 3"
              label={
                <TopLabel
                  text={`⚑ ${BOUNDARY_LABEL[b.strategy]}`}
                  color={BOUNDARY_COLOR[b.strategy]}
                  testId={`${metric}-boundary-marker`}
                  title={`${BOUNDARY_LABEL[b.strategy]} at pass ${b.pass_number}: ${b.reason}`}
                  row={1}
                />
              }
            />
          ))}
          {collapse ? (
            <ReferenceLine
              x={collapse.pass_number}
              stroke={FLOOR_POINT_COLOR[floorPoint]}
              strokeWidth={2}
              label={
                <TopLabel
                  text={`${FLOOR_POINT_WORDS[floorPoint].mark} · pass ${collapse.pass_number}`}
                  color={FLOOR_POINT_COLOR[floorPoint]}
                  testId={`${metric}-collapse-marker`}
                  title={`${FLOOR_POINT_WORDS[floorPoint].meaning}: ${collapse.pass_id} (${collapse.verdict})`}
                />
              }
            />
          ) : null}
          {candidate?.collapse_pass_number != null ? (
            <ReferenceLine
              x={candidate.collapse_pass_number}
              stroke="var(--accent)"
              strokeWidth={2}
              strokeDasharray="4 2"
              label={
                <TopLabel
                  text={`candidate collapse · pass ${candidate.collapse_pass_number}`}
                  color="var(--accent)"
                  testId={`${metric}-candidate-collapse`}
                  title="Where the chain would collapse under the candidate floor"
                  row={collapse ? 2 : 0}
                />
              }
            />
          ) : null}
          {selected ? (
            <ReferenceLine x={selected.pass_number} stroke="var(--accent)" strokeOpacity={0.5} strokeWidth={6} />
          ) : null}

          <Line
            type="linear"
            dataKey={(row: SeriesPoint | GapRow) => (isGap(row) ? null : m.value(row))}
            name={m.title}
            stroke="var(--curve)"
            strokeWidth={2}
            connectNulls={false}
            dot={(dot: { cx?: number; cy?: number; payload?: SeriesPoint | GapRow; index?: number }) => {
              const row = dot.payload;
              const key = `dot-${dot.index}`;
              if (!row || isGap(row) || dot.cx === undefined || dot.cy === undefined) return <g key={key} />;
              if (underFloor(row)) {
                // Under the floor: a hollow red ring, told apart from the curve without colour alone.
                return (
                  <g key={key} data-testid={`${metric}-under-floor`} pointerEvents="none">
                    <title>{`Pass ${row.pass_number} under its floor`}</title>
                    <circle
                      cx={dot.cx}
                      cy={dot.cy}
                      r={5}
                      fill="var(--panel)"
                      stroke="var(--danger)"
                      strokeWidth={2.5}
                    />
                  </g>
                );
              }
              return showDots ? (
                <circle key={key} cx={dot.cx} cy={dot.cy} r={3} fill="var(--curve)" />
              ) : (
                <g key={key} />
              );
            }}
            activeDot={{ r: 5 }}
            isAnimationActive={false}
          />
          {measuredDrawn ? (
            <Line
              type="linear"
              dataKey={(row: SeriesPoint | GapRow) => (isGap(row) ? null : row.measured_density)}
              name="Measured density"
              stroke="var(--measured)"
              strokeWidth={2}
              connectNulls
              dot={(dot: { cx?: number; cy?: number; payload?: SeriesPoint | GapRow; index?: number }) => {
                const row = dot.payload;
                const key = `measured-dot-${dot.index}`;
                if (!row || isGap(row) || row.measured_density === null || dot.cx === undefined || dot.cy === undefined)
                  return <g key={key} />;
                return (
                  <rect
                    key={key}
                    data-testid="density-measured-point"
                    x={dot.cx - 3}
                    y={dot.cy - 3}
                    width={6}
                    height={6}
                    fill="var(--measured)"
                    pointerEvents="none"
                  />
                );
              }}
              activeDot={false}
              isAnimationActive={false}
            />
          ) : null}
          {brush ? (
            <Brush
              key={brushMount.key}
              startIndex={brushMount.range?.startIndex}
              endIndex={brushMount.range?.endIndex}
              dataKey="pass_number"
              height={24}
              travellerWidth={10}
              stroke="var(--accent)"
              fill="var(--panel)"
              tickFormatter={(v: number) => String(Math.round(v))}
              onChange={(range) => {
                const { startIndex, endIndex } = range as { startIndex?: number; endIndex?: number };
                if (startIndex === undefined || endIndex === undefined) return;
                setZoom(startIndex === 0 && endIndex === rows.length - 1 ? null : { startIndex, endIndex });
              }}
            />
          ) : null}

          {measuredGaps.map((p) => (
            <ReferenceLine
              key={`measured-gap-${p.pass_id}`}
              segment={[
                { x: p.pass_number, y: p.density },
                { x: p.pass_number, y: p.measured_density as number },
              ]}
              stroke="var(--measured)"
              strokeWidth={2}
              strokeDasharray="3 2"
              ifOverflow="visible"
            />
          ))}
          {measuredGaps.map((p) => (
            <ReferenceDot
              key={`measured-marker-${p.pass_id}`}
              x={p.pass_number}
              y={p.measured_density as number}
              ifOverflow="visible"
              shape={(props) => (
                <MeasuredGap
                  {...props}
                  testId="density-measurement-marker"
                  title={`Pass ${p.pass_number}: claimed density ${p.density.toFixed(3)}, measured ${(p.measured_density as number).toFixed(3)}; the guard's verdict differs`}
                />
              )}
            />
          ))}
          {mismatches.map((mm) => {
            if (mm.kind === "measurement") return null;
            const y = valueAt.get(mm.pass_number);
            return y === undefined ? null : (
              <ReferenceDot
                key={`mismatch-${mm.kind}-${mm.pass_id}`}
                x={mm.pass_number}
                y={y}
                ifOverflow="visible"
                shape={(p) =>
                  mm.kind === "checked" ? (
                    <Square
                      {...p}
                      testId={`${metric}-checked-marker`}
                      title={`Pass ${mm.pass_number}: its content contradicts the client's claims; checked verdict ${mm.checked_verdict ?? "?"}`}
                    />
                  ) : (
                    <Diamond
                      {...p}
                      testId={`${metric}-mismatch-marker`}
                      title={`Pass ${mm.pass_number}: client said ${mm.client_verdict ?? "another digest"}, server said ${mm.verdict}`}
                    />
                  )
                }
              />
            );
          })}
          {findings.map((f) => {
            const y = valueAt.get(f.pass_number);
            return y === undefined ? null : (
              <ReferenceDot
                key={`finding-${f.pass_id}-${f.kind}`}
                x={f.pass_number}
                y={y}
                ifOverflow="visible"
                shape={(p) => (
                  <Triangle {...p} testId={`${metric}-integrity-marker`} title={`${formatKind(f.kind)}: ${f.detail}`} />
                )}
              />
            );
          })}
        </LineChart>
      </div>
      {brush ? (
        <p className="muted small chart-hint">
          Drag the handles under the chart to zoom into a stretch of passes
          {zoom ? (
            <>
              {" "}
              (showing passes {first} to {last}){" "}
              <button
                type="button"
                onClick={() => {
                  setZoom(null);
                  setBrushMount((m) => ({ key: m.key + 1, range: null }));
                }}
                data-testid={`${metric}-zoom-reset`}
              >
                Show all
              </button>
            </>
          ) : null}
          .
        </p>
      ) : null}
      <ChartData
        caption={`${m.title} per pass`}
        testId={`${metric}-data`}
        columns={
          measuredDrawn
            ? ["Pass", "Pass id", "Claimed density", "Measured density", "Floor", "Verdict", "Marks"]
            : ["Pass", "Pass id", m.title, "Floor", "Verdict", "Marks"]
        }
        rows={points.map((p) => {
          const floor = floorOf(p);
          const marks = [
            underFloor(p) ? "under floor" : "",
            p.integrity ? formatKind(p.integrity) : "",
            p.client_mismatch ? "client mismatch" : "",
            p.measurement_mismatch ? "measurement mismatch" : "",
          ].filter(Boolean);
          return {
            key: p.pass_id,
            cells: [
              p.pass_number,
              <code key="id">{p.pass_id}</code>,
              formatValue(metric, metric === "size" ? p.size : p.density),
              ...(measuredDrawn
                ? [p.measured_density === null ? "not measured" : formatValue(metric, p.measured_density)]
                : []),
              floor === null ? "" : formatValue(metric, floor),
              p.verdict,
              marks.join(", "),
            ],
          };
        })}
      />
    </figure>
  );
}
