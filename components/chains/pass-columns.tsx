"use client";
import { WIDE_ONLY } from "@/components/data-table";
import { createColumnHelper } from "@tanstack/react-table";
import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import type { PassRow } from "@/lib/chains/types";
import { PASS_FLAG } from "@/lib/chains/downsample";
import { formatBytes, formatKind } from "@/lib/format";
import { ShortHash } from "@/components/ui/short-hash";
import { VerdictBadge } from "@/components/ui/verdict-badge";
import type { OriginalLinkProps } from "./original-links";

/** A row of the passes table: the pass and the cached originals of its input and output, if any. */
export interface PassTableRow extends PassRow {
  input_original: OriginalLinkProps | null;
  output_original: OriginalLinkProps | null;
}

const col = createColumnHelper<PassTableRow>();

/** The pass number as a link that opens the pass's details, for keyboards as much as for pointers. */
function PassLink({ row }: { row: PassTableRow }) {
  const pathname = usePathname();
  const params = new URLSearchParams(useSearchParams().toString());
  params.set("pass", row.pass_id);
  return (
    <Link
      prefetch={false}
      href={`${pathname}?${params.toString()}`}
      scroll={false}
      onClick={(event) => event.stopPropagation()}
      aria-label={`Open pass ${row.pass_number}`}
    >
      <strong>{row.pass_number}</strong>
    </Link>
  );
}

/** The marks a row carries, so findings show where they occur and not only in a list. */
function RowMarks({ row }: { row: PassTableRow }) {
  const original = row.output_original ?? row.input_original;
  return (
    <span className="row-marks">
      {row.client_mismatch ? (
        <span
          className="mark mismatch"
          title={`Client said ${row.client_verdict ?? "a different digest"}; server said ${row.verdict}`}
          data-testid="row-mismatch"
        >
          ◆ client mismatch
        </span>
      ) : null}
      {row.measurement_mismatch ? (
        <span
          className="mark measurement"
          title={`Measured from its content, the guard says ${row.checked_verdict ?? "otherwise"}; on the claims, ${row.verdict}`}
          data-testid="row-measurement-mismatch"
        >
          ⬡ measurement mismatch
        </span>
      ) : null}
      {row.integrity ? (
        <span className="mark integrity" title={row.integrity.detail} data-testid="row-integrity">
          ▲ {formatKind(row.integrity.kind)}
        </span>
      ) : null}
      {original ? (
        <a
          className="mark original"
          href={original.href}
          onClick={(event) => event.stopPropagation()}
          title={`Cached original of this pass's ${row.output_original ? "output" : "input"}`}
          data-testid="row-original"
        >
          ◎ original
        </a>
      ) : null}
      {row.flags & PASS_FLAG.boundary ? (
        <span className="mark boundary" title="A boundary receipt names this pass" data-testid="row-boundary">
          ⚑ boundary
        </span>
      ) : null}
    </span>
  );
}

// On a phone the table keeps the pass, its verdict, size and density; the pass's panel shows
// its id, directive and hashes (the WIDE_ONLY columns) in full.

export const passColumns = [
  col.accessor("pass_number", { header: "Pass", cell: (c) => <PassLink row={c.row.original} /> }),
  col.accessor("pass_id", {
    header: "Pass id",
    meta: WIDE_ONLY,
    cell: (c) => (
      <code className="ellipsis" title={c.getValue()}>
        {c.getValue()}
      </code>
    ),
  }),
  col.accessor("verdict", {
    header: "Verdict",
    cell: (c) => (
      <>
        <VerdictBadge verdict={c.getValue()} />
        {c.row.original.effective_verdict !== c.getValue() ? (
          <span
            className="effective-verdict"
            title="The class follows measured density: the chain counts this pass by its measured verdict"
            data-testid="row-effective-verdict"
          >
            {" "}
            → measured <VerdictBadge verdict={c.row.original.effective_verdict} />
          </span>
        ) : null}{" "}
        <RowMarks row={c.row.original} />
      </>
    ),
  }),
  col.accessor("directive", {
    header: "Directive",
    meta: WIDE_ONLY,
    cell: (c) => <span className="directive">{c.getValue()}</span>,
  }),
  col.accessor("current_size_bytes", {
    header: "Size",
    cell: (c) => (
      <span className="nowrap" title={`${c.getValue()} bytes`}>
        {formatBytes(c.getValue())}
      </span>
    ),
  }),
  col.accessor("semantic_density_score", {
    header: "Density",
    cell: (c) => {
      const measured = c.row.original.server_checks?.semantic_density_score;
      return measured === undefined ? (
        c.getValue().toFixed(3)
      ) : (
        <span className="nowrap" title="Claimed by the agent, then measured by Floorline from the pass's content">
          {c.getValue().toFixed(3)} <span className="measured-text">/ {measured.toFixed(3)} measured</span>
        </span>
      );
    },
  }),
  col.accessor("input_content_hash", {
    header: "Input hash",
    meta: WIDE_ONLY,
    cell: (c) => <ShortHash value={c.getValue()} />,
  }),
  col.accessor("current_content_hash", {
    header: "Output hash",
    meta: WIDE_ONLY,
    cell: (c) => <ShortHash value={c.getValue()} />,
  }),
  col.accessor("manifest_digest", {
    header: "Manifest digest",
    meta: WIDE_ONLY,
    cell: (c) => <ShortHash value={c.getValue()} />,
  }),
];

const HASH_COLUMNS = new Set(["pass_id", "input_content_hash", "current_content_hash", "manifest_digest"]);
export const compactPassColumns = passColumns.filter(
  (c) => !HASH_COLUMNS.has((c as { accessorKey?: string }).accessorKey ?? ""),
);
