// The labels and markers drawn over a pass chart, apart from the chart itself so each
// reads on its own. Labels are passed to recharts as elements (`label={<TopLabel ... />}`);
// recharts clones them with the reference line's box as `viewBox`. Each label is drawn over a
// halo of the panel's colour, so it stays readable where it crosses a curve or a marker (on a
// phone the plot is narrow and labels often do).

const HALO = { stroke: "var(--panel)", strokeWidth: 3, strokeLinejoin: "round", paintOrder: "stroke" } as const;

interface LabelViewBox {
  viewBox?: { x?: number; y?: number; width?: number; height?: number };
}

interface MarkLabel extends LabelViewBox {
  text: string;
  color: string;
  testId: string;
}

/** A label at the top of a vertical reference line, carrying a test id and a native tooltip. */
export function TopLabel({
  viewBox,
  text,
  color,
  testId,
  title,
  row = 0,
}: MarkLabel & { title: string; row?: number }) {
  const x = viewBox?.x ?? 0;
  const y = (viewBox?.y ?? 0) + 4 + row * 14;
  return (
    <g data-testid={testId}>
      <title>{title}</title>
      <text x={x + 4} y={y + 9} fill={color} fontSize={11} fontWeight={600} {...HALO}>
        {text}
      </text>
    </g>
  );
}

/** A label at the foot of a vertical reference line, out of the way of the markers labelled at the top. */
export function BottomLabel({ viewBox, text, color, testId, title }: MarkLabel & { title: string }) {
  const x = viewBox?.x ?? 0;
  const y = (viewBox?.y ?? 0) + (viewBox?.height ?? 0) - 6;
  return (
    <g data-testid={testId}>
      <title>{title}</title>
      <text x={x - 4} y={y} fill={color} fontSize={11} fontWeight={600} textAnchor="end" {...HALO}>
        {text}
      </text>
    </g>
  );
}

/**
 * A label above a horizontal line. Floors are labelled at their left end, where a chain's
 * curve is usually still high and its markers (collapse, findings) rarely are; the candidate
 * at its right end, so the two never overlap.
 */
export function FloorLabel({
  viewBox,
  text,
  color,
  testId,
  side,
  strong = false,
}: MarkLabel & { side: "start" | "end"; strong?: boolean }) {
  const left = viewBox?.x ?? 0;
  const x = side === "end" ? left + (viewBox?.width ?? 0) - 4 : left + 4;
  const y = viewBox?.y ?? 0;
  return (
    <g data-testid={testId}>
      <text x={x} y={y - 4} fill={color} fontSize={11} fontWeight={strong ? 600 : 400} textAnchor={side} {...HALO}>
        {text}
      </text>
    </g>
  );
}

// Markers sit beside the point (mismatches below, integrity findings above) so that both
// show on one pass, and let the pointer through to the chart, whose tooltip tells what they mark.
interface MarkerProps {
  cx?: number;
  cy?: number;
  testId: string;
  title: string;
}

function Marker({ testId, title, d, fill }: Pick<MarkerProps, "testId" | "title"> & { d: string; fill: string }) {
  return (
    <g data-testid={testId} pointerEvents="none">
      <title>{title}</title>
      <path d={d} fill={fill} stroke="var(--panel)" strokeWidth={1.5} />
    </g>
  );
}

/** A client/server mismatch, under the point. */
export function Diamond({ cx = 0, cy = 0, testId, title }: MarkerProps) {
  const d = `M ${cx} ${cy + 4} L ${cx + 6} ${cy + 10} L ${cx} ${cy + 16} L ${cx - 6} ${cy + 10} Z`;
  return <Marker testId={testId} title={title} d={d} fill="var(--warn)" />;
}

/** An integrity finding, over the point. */
export function Triangle({ cx = 0, cy = 0, testId, title }: MarkerProps) {
  const d = `M ${cx} ${cy - 17} L ${cx + 6} ${cy - 6} L ${cx - 6} ${cy - 6} Z`;
  return <Marker testId={testId} title={title} d={d} fill="var(--integrity)" />;
}

/** A checked mismatch: the server read the pass's content and it contradicts the client's claims. */
export function Square({ cx = 0, cy = 0, testId, title }: { cx?: number; cy?: number; testId: string; title: string }) {
  return (
    <g data-testid={testId} pointerEvents="none">
      <title>{title}</title>
      <rect x={cx + 5} y={cy + 5} width={9} height={9} fill="var(--danger)" stroke="var(--panel)" strokeWidth={1.5} />
    </g>
  );
}

/**
 * A measurement mismatch at the measured value: a hollow hexagon in the measured colour (the
 * chart joins it to the claimed value with a dashed bar, so the gap reads at a glance).
 */
export function MeasuredGap({ cx = 0, cy = 0, testId, title }: MarkerProps) {
  const r = 6;
  const hexagon = [0, 1, 2, 3, 4, 5]
    .map((i) => {
      const a = (Math.PI / 3) * i + Math.PI / 6;
      return `${cx + r * Math.cos(a)},${cy + r * Math.sin(a)}`;
    })
    .join(" ");
  return (
    <g data-testid={testId} pointerEvents="none">
      <title>{title}</title>
      <polygon points={hexagon} fill="var(--panel)" stroke="var(--measured)" strokeWidth={2.5} />
    </g>
  );
}
