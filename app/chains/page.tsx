import type { Metadata } from "next";
import { Suspense } from "react";
import { type ChainFilter, countChains, listChainClasses, listChainServices, listChains } from "@/db/queries/chains";
import type { ChainKey } from "@/lib/chains/types";
import { encodeCursor } from "@/lib/http/cursor";
import { decodeChainCursor, defaultOrder } from "@/lib/schemas/chains";
import { formatCount } from "@/lib/format";
import { chainsExportHref, chainsHref } from "@/lib/routes";
import { parseSearchParamsWithNotices, safeCursor, type RawSearchParams } from "@/lib/url-state";
import { ChainFilters } from "@/components/chains/chain-filters";
import { ChainsTable } from "@/components/chains/chains-table";
import { AutoRefresh } from "@/components/ui/auto-refresh";
import { IgnoredParamsNotice } from "@/components/ui/ignored-params-notice";
import { Pager } from "@/components/ui/pager";
import { TableSkeleton } from "@/components/ui/skeleton";
import { type ChainsPageParams, chainsPageParamsSchema, DEFAULT_PAGE_SIZE } from "./search-params";
import { requirePage } from "@/app/_access/page-access";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Chains" };

/** The filter part of the URL, shared by pager links and export links. */
function filterParams(p: ChainsPageParams, order: "asc" | "desc") {
  return {
    status: p.status?.join(","),
    marker_kind: p.marker_kind?.join(","),
    range: p.range,
    content_class: p.content_class,
    service: p.service,
    q: p.q,
    sort: p.sort === "attention" ? undefined : p.sort,
    order: order === defaultOrder(p.sort) ? undefined : order,
  };
}

export default async function ChainsPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  await requirePage("/chains");
  const { params: p, ignored } = parseSearchParamsWithNotices(chainsPageParamsSchema, await searchParams, {
    repeatable: ["status"],
    quiet: ["cursor"],
  });
  const order = p.order ?? defaultOrder(p.sort);
  const [classes, services] = await Promise.all([listChainClasses(), listChainServices()]);
  return (
    <>
      <div className="overview-head">
        <div>
          <h1>Chains</h1>
          <p className="subtitle">
            Every compression chain, filtered and sorted on the server. The URL is the view: share it.
          </p>
        </div>
        <AutoRefresh />
      </div>
      <IgnoredParamsNotice ignored={ignored} />
      <ChainFilters
        status={p.status?.join(",")}
        markerKind={p.marker_kind?.join(",")}
        range={p.range}
        contentClass={p.content_class}
        service={p.service}
        services={services}
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
  const key: ChainKey | undefined = safeCursor((c) => decodeChainCursor(c, p.sort), p.cursor).key;
  // The filter the page lists and counts alike.
  const filter: ChainFilter = {
    status: p.status,
    marker_kind: p.marker_kind,
    range: p.range,
    content_class: p.content_class,
    service: p.service,
    q: p.q,
  };
  const [page, total] = await Promise.all([
    listChains({
      ...filter,
      sort: p.sort,
      order,
      limit: p.limit,
      ...(key && p.dir === "prev" ? { before: key } : { after: key }),
      withPrev: true,
    }),
    countChains(filter),
  ]);
  const filters = filterParams(p, order);
  const limit = p.limit === DEFAULT_PAGE_SIZE ? undefined : p.limit;
  const exportHref = (format: "csv" | "json") => chainsExportHref(format, filters);
  const filtered = Boolean(p.status || p.marker_kind || p.range || p.content_class || p.service || p.q);
  const totalText = total ? `${formatCount(total.count)}${total.capped ? "+" : ""}` : null;
  return (
    <>
      <div className="section-head">
        <span className="muted" data-testid="chains-total">
          {total === null
            ? "Chains matching (searches under 3 characters are not counted)"
            : `${totalText} ${total.count === 1 && !total.capped ? "chain" : "chains"}${filtered ? " match" : ""}`}
        </span>
        <span className="exports">
          Export {filtered ? "these" : "all"}
          {totalText ? ` ${totalText}` : ""}:{" "}
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
                No chains match these filters. <a href={chainsHref()}>Clear filters</a>
              </>
            ) : (
              <>No chains yet: agents create one by posting receipts to /api/v1/passes.</>
            )
          }
        />
      </div>
      <Pager
        label="Pages of chains"
        steps={[
          { href: page.prev ? chainsHref({ ...filters, limit }) : null, text: "⇤ First", testId: "chains-first" },
          {
            href: page.prev ? chainsHref({ ...filters, limit, cursor: encodeCursor(page.prev), dir: "prev" }) : null,
            text: "← Previous",
            rel: "prev",
            testId: "chains-prev",
          },
          {
            href: page.next ? chainsHref({ ...filters, limit, cursor: encodeCursor(page.next) }) : null,
            text: "Next →",
            rel: "next",
            testId: "chains-next",
          },
        ]}
      />
    </>
  );
}
