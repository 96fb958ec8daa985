import type { BoundaryWire } from "@/lib/schemas/boundaries";
import { getChainPass, listChainPasses } from "@/db/queries/passes";
import type { PassCursor } from "@/lib/chains/types";
import { listOriginalLinksByHash } from "@/db/queries/originals/links";
import { chainHref } from "@/lib/routes";
import { Pager } from "@/components/ui/pager";
import { PassDetail } from "@/components/chains/pass-detail";
import { PassesTable } from "@/components/chains/passes-table";
import { type ChainPageParams, DEFAULT_PAGE_SIZE, formatPassCursor } from "../search-params";

const LAST_PAGE = formatPassCursor([Number.MAX_SAFE_INTEGER, 0]);

/** A page of the chain's passes (keyset by pass number) and, when one is chosen, all of its fields. */
export async function PassesSection({
  chainId,
  query,
  boundaries,
}: {
  chainId: string;
  query: ChainPageParams;
  boundaries: BoundaryWire[];
}) {
  const cursor: PassCursor = query.after
    ? { after: query.after }
    : query.before
      ? { before: query.before }
      : query.from !== undefined
        ? { from: query.from }
        : { start: true };
  const [page, selected] = await Promise.all([
    listChainPasses(chainId, cursor, query.size, boundaries),
    query.pass ? getChainPass(chainId, query.pass) : Promise.resolve(null),
  ]);
  const originals = await listOriginalLinksByHash([
    ...page.rows.flatMap((r) => [r.input_content_hash, r.current_content_hash]),
    ...(selected ? [selected.input_content_hash, selected.current_content_hash] : []),
  ]);
  const linkOf = (hash: string | null) => (hash ? (originals.get(hash) ?? null) : null);
  const rows = page.rows.map((r) => ({
    ...r,
    input_original: linkOf(r.input_content_hash),
    output_original: linkOf(r.current_content_hash),
  }));
  const keep = { pass: query.pass, size: query.size === DEFAULT_PAGE_SIZE ? undefined : query.size };
  const first = page.rows[0]?.pass_number;
  const last = page.rows.at(-1)?.pass_number;
  return (
    <section className="passes-layout" aria-label="Passes">
      <div className="panel passes-panel">
        <div className="section-head">
          <h2>Passes</h2>
          {first !== undefined ? (
            <span className="muted" data-testid="passes-range">
              passes {first}–{last}
            </span>
          ) : null}
        </div>
        <PassesTable rows={rows} selectedPassId={query.pass ?? null} />
        <Pager
          label="Pages of passes"
          steps={[
            { href: page.prev ? chainHref(chainId, keep) : null, text: "⇤ First" },
            {
              href: page.prev ? chainHref(chainId, { ...keep, before: formatPassCursor(page.prev) }) : null,
              text: "← Earlier",
              rel: "prev",
            },
            {
              href: page.next ? chainHref(chainId, { ...keep, after: formatPassCursor(page.next) }) : null,
              text: "Later →",
              rel: "next",
              testId: "passes-next",
            },
            { href: page.next ? chainHref(chainId, { ...keep, before: LAST_PAGE }) : null, text: "Last ⇥" },
          ]}
        />
      </div>
      {query.pass ? (
        selected ? (
          <PassDetail
            pass={selected}
            boundaries={boundaries}
            closeHref={chainHref(chainId, {
              ...keep,
              pass: undefined,
              from: query.from,
              after: query.after && formatPassCursor(query.after),
              before: query.before && formatPassCursor(query.before),
            })}
            originals={{ input: linkOf(selected.input_content_hash), output: linkOf(selected.current_content_hash) }}
          />
        ) : (
          <aside className="panel pass-detail empty">No pass {JSON.stringify(query.pass)} in this chain.</aside>
        )
      ) : null}
    </section>
  );
}
