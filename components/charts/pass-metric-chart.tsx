"use client";
// One curve of a chain over pass number (size or semantic density) with everything an
// operator needs to read it in place: the floor of the policy version that judged each
// stretch, the max-pass limit, the collapse point, boundary receipts, integrity findings
// and client/server mismatches. Props arrive shaped and downsampled by the server.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceDot,
  ReferenceLine,
  Tooltip,
  XAxis,
  YAxis,
  type TooltipContentProps,
} from "recharts";
import type { BoundaryWire } from "@/lib/chains/types";
import type { IntegrityFinding } from "@/lib/chains/integrity";
import type { FloorSpan, Mismatch, SeriesPoint } from "@/lib/chains/series";
import { LOG_AXIS_MIN, logDomain, logTicks, passDomain } from "@/lib/chart-domain";
import { formatBytes, formatKind } from "@/lib/format";
import { VerdictBadge } from "@/components/ui/verdict-badge";
import { BottomLabel, Diamond, FloorLabel, Square, TopLabel, Triangle } from "./chart-marks";

export type Metric = "size" | "density";

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

function PassTooltip({
  active,
  payload,
  metric,
}: Pick<TooltipContentProps, "active" | "payload"> & { metric: Metric }) {
  const point = active ? (payload?.[0]?.payload as SeriesPoint | undefined) : undefined;
  if (!point) return null;
  return (
    <div className="chart-tooltip" data-testid="chart-tooltip">
      <div>
        <strong>Pass {point.pass_number}</strong> <code>{point.pass_id}</code>
      </div>
      <div>
        <VerdictBadge verdict={point.verdict} /> <span className="muted">policy v{point.policy_version}</span>
      </div>
      <div className="directive">{point.directive}</div>
      <div className="muted">
        size {formatBytes(point.size)} · density {point.density.toFixed(3)}
      </div>
      {point.client_mismatch ? (
        <div className="warn-text">Client said {point.client_verdict ?? "a different digest"}</div>
      ) : null}
      {point.integrity ? <div className="integrity-text">Integrity: {formatKind(point.integrity)}</div> : null}
      <div className="muted hint">Click to open this pass</div>
      {metric === "size" && point.size < LOG_AXIS_MIN ? (
        <div className="muted">(0 bytes drawn at 1 B on the log axis)</div>
      ) : null}
    </div>
  );
}

export function PassMetricChart(props: PassMetricChartProps) {
  const {
    metric,
    points,
    floors,
    collapse,
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
  const m = METRIC[metric];

  const firstPoint = points[0];
  const lastPoint = points.at(-1);
  if (!firstPoint || !lastPoint) return <div className="empty">No passes yet.</div>;

  const first = firstPoint.pass_number;
  const last = lastPoint.pass_number;
  const limits = [...floors.map((f) => f.max_pass_number), ...(candidate ? [candidate.max_pass_number] : [])];
  const x = passDomain(first, last, limits);
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
    const point = index === undefined ? undefined : points[index];
    if (!point) return;
    const params = new URLSearchParams(searchParams.toString());
    params.set("pass", point.pass_id);
    params.delete("after");
    params.delete("before");
    params.set("from", String(point.pass_number));
    router.push(`${pathname}?${params.toString()}`, { scroll: false });
  }

  return (
    <div className="chart" data-testid={`${metric}-chart`} data-points={points.length}>
      <LineChart
        responsive
        style={{ width: "100%", height }}
        data={points}
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
              label={<FloorLabel text={text} testId={`${metric}-floor`} color="var(--danger)" side="end" />}
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
                side="start"
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
            stroke="var(--danger)"
            strokeWidth={2}
            label={
              <TopLabel
                text={`collapse · pass ${collapse.pass_number}`}
                color="var(--danger)"
                testId={`${metric}-collapse-marker`}
                title={`Collapse point: ${collapse.pass_id} (${collapse.verdict})`}
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
          dataKey={m.value}
          name={m.title}
          stroke="var(--curve)"
          strokeWidth={2}
          dot={showDots ? { r: 3, fill: "var(--curve)", strokeWidth: 0 } : false}
          activeDot={{ r: 5 }}
          isAnimationActive={false}
        />

        {mismatches.map((mm) => {
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
  );
}
