"use client";
import type { ColumnDef } from "@tanstack/react-table";
import { DataTable } from "@/components/data-table";
import type { NodeFate, NodeOutcome } from "@/lib/traces/action-space";
import type { ReasoningNode } from "@/lib/traces/trace";

export interface NodeRow extends ReasoningNode {
  index: number;
  outcome: NodeOutcome;
}

const FATES: Record<NodeFate, { label: string; tone: string; title: string }> = {
  axiom: { label: "binding axiom", tone: "safe", title: "Promoted to a binding axiom with its receipt" },
  invalidation: {
    label: "negative constraint",
    tone: "neutral",
    title: "Kept as an invalidated path with its receipt",
  },
  omitted: {
    label: "omitted: no receipt",
    tone: "warn",
    title: "A falsified path without a deterministic receipt: dropped, not recorded as a wall",
  },
  pruned: { label: "pruned", tone: "neutral", title: "Exploratory chatter: pruned from the residual" },
  rejected: { label: "unverified", tone: "danger", title: "A conclusion without a receipt: the trace fails closed" },
};

function FateBadge({ outcome }: { outcome: NodeOutcome }) {
  const fate = FATES[outcome.fate];
  return (
    <span
      className={`badge ${fate.tone} audit-fate-${outcome.fate}`}
      title={fate.title}
      data-testid="node-fate"
      data-fate={outcome.fate}
    >
      {fate.label}
      {outcome.duplicate ? " (repeat)" : ""}
    </span>
  );
}

// Nodes that did not survive are struck through, so the residual's sources stand out.
const survived = (row: NodeRow) => row.outcome.fate === "axiom" || row.outcome.fate === "invalidation";

const columns: ColumnDef<NodeRow>[] = [
  { id: "index", header: "#", cell: ({ row }) => <span className="mono">{row.original.index}</span> },
  { id: "node", header: "Node", cell: ({ row }) => <span className="mono">{row.original.node_id}</span> },
  { id: "type", header: "Type", cell: ({ row }) => <span className="mono audit-small">{row.original.node_type}</span> },
  {
    id: "content",
    header: "Content",
    cell: ({ row }) =>
      survived(row.original) ? (
        <span className="audit-pre">{row.original.content}</span>
      ) : (
        <s className="audit-pre">{row.original.content}</s>
      ),
  },
  {
    id: "receipt",
    header: "Receipt",
    cell: ({ row }) =>
      row.original.verification_receipt === null || row.original.verification_receipt === undefined ? (
        <span className="audit-subtle">none</span>
      ) : (
        <code className="audit-pre">{row.original.verification_receipt}</code>
      ),
  },
  { id: "fate", header: "In the residual", cell: ({ row }) => <FateBadge outcome={row.original.outcome} /> },
];

export function NodeTable({ rows }: { rows: NodeRow[] }) {
  return (
    <DataTable label="Raw nodes" columns={columns} rows={rows} rowId={(r) => String(r.index)} testId="node-table" />
  );
}
