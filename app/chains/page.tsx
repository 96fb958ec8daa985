import type { Metadata } from "next";
import { Suspense } from "react";
import { countChains, listChainClasses, listChains } from "@/db/queries/chains";
import { type ChainKey } from "@/lib/chains/types";
import { encodeCursor } from "@/lib/http/cursor";
import { decodeChainCursor, defaultOrder, type ChainSort } from "@/lib/schemas/chains";
import {
  hrefWith,
  parseChainsPageParams,
  type ChainsPageParams,
  type RawSearchParams,
} from "@/lib/schemas/search-params";
import { formatCount } from "@/lib/format";
import { ChainFilters } from "@/components/chains/chain-filters";
import { ChainsTable } from "@/components/chains/chains-table";
import { TableSkeleton } from "@/components/ui/skeleton";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Chains" };

function cursorKey(cursor: string | undefined, sort: ChainSort): ChainKey | undefined {
  try {
    return decodeChainCursor(cursor, sort);
  } catch {
    // A hand-edited or stale cursor: start from the first page rather than fail.
    return undefined;
  }
}

/** The filter part of the URL, shared by pager links and export links. */
function filterParams(p: ChainsPageParams, order: "asc" | "desc") {
  return {
    status: p.status,
    content_class: p.content_class,
    q: p.q,
    sort: p.sort === "last_activity" ? undefined : p.sort,
    order: order === defaultOrder(p.sort) ? undefined : order,
  };
}

export default async function ChainsPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  const p = parseChainsPageParams(await searchParams);
  const order = p.order ?? defaultOrder(p.sort);
  const classes = await listChainClasses();
  return (
    <>
      <h1>Chains</h1>
      <p className="subtitle">
        Every compression chain, filtered and sorted on the server. The URL is the view: share it.
      </p>
      <ChainFilters
        status={p.status}
        contentClass={p.content_class}
        q={p.q}
        sort={p.sort}
        order={order}
        limit={p.limit}
        classes={classes}
      />
      <Suspense key={JSON.stringify(p)} fallback={<TableSkeleton rows={12} label="Loading chains" />}>
        <ChainsResults params={p} order={order} />
      </Suspense>
    </>
  );
}

async function ChainsResults({ params: p, order }: { params: ChainsPageParams; order: "asc" | "desc" }) {
  const key = cursorKey(p.cursor, p.sort);
  const [page, total] = await Promise.all([
    listChains({
      status: p.status,
      content_class: p.content_class,
      q: p.q,
      sort: p.sort,
      order,
      limit: p.limit,
      ...(key && p.dir === "prev" ? { before: key } : { after: key }),
      withPrev: true,
    }),
    countChains({ status: p.status, content_class: p.content_class, q: p.q }),
  ]);
  const filters = filterParams(p, order);
  const limit = p.limit === 50 ? undefined : p.limit;
  const exportHref = (format: "csv" | "json") => hrefWith("/api/v1/exports/chains", { format, ...filters });
  const filtered = Boolean(p.status || p.content_class || p.q);
  return (
    <>
      <div className="section-head">
        <span className="muted" data-testid="chains-total">
          {formatCount(total)} {total === 1 ? "chain" : "chains"}
          {filtered ? " match" : ""}
        </span>
        <span className="exports">
          Export {filtered ? "these" : "all"} {formatCount(total)}:{" "}
          <a href={exportHref("csv")} download data-testid="export-csv">
            CSV
          </a>{" "}
          ·{" "}
          <a href={exportHref("json")} download data-testid="export-json">
            JSON
          </a>
        </span>
      </div>
      <div className="panel flush">
        <ChainsTable
          rows={page.items}
          empty={
            filtered ? (
              <>
                No chains match these filters. <a href="/chains">Clear filters</a>
              </>
            ) : (
              <>No chains yet: agents create one by posting receipts to /api/v1/passes.</>
            )
          }
        />
      </div>
      <nav className="pager" aria-label="Pages of chains">
        {page.prev ? (
          <a href={hrefWith("/chains", { ...filters, limit })} data-testid="chains-first">
            ⇤ First
          </a>
        ) : null}
        {page.prev ? (
          <a
            href={hrefWith("/chains", { ...filters, limit, cursor: encodeCursor(page.prev), dir: "prev" })}
            data-testid="chains-prev"
          >
            ← Previous
          </a>
        ) : (
          <span className="muted">← Previous</span>
        )}
        {page.next ? (
          <a
            href={hrefWith("/chains", { ...filters, limit, cursor: encodeCursor(page.next) })}
            data-testid="chains-next"
          >
            Next →
          </a>
        ) : (
          <span className="muted">Next →</span>
        )}
      </nav>
    </>
  );
}
