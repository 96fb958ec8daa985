import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getChainSummary } from "@/db/queries/chains";
import { getFactLedger, listChainFacts } from "@/db/queries/chain-facts";
import { ChainHeader } from "@/components/chains/chain-header";
import { ChainTabs } from "@/components/chains/chain-tabs";
import { FactsTable } from "@/components/chains/facts-table";
import { Pager } from "@/components/ui/pager";
import { formatCount } from "@/lib/format";
import { chainFactsHref } from "@/lib/routes";
import { FACT_FATES, type FactFate } from "@/lib/schemas/facts";
import { decodeSegment, parseSearchParams, type RawSearchParams } from "@/lib/url-state";
import { requirePage } from "@/app/_access/page-access";
import { FACTS_PAGE_SIZE, factsPageParamsSchema } from "./search-params";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ chain_id: string }>; searchParams: Promise<RawSearchParams> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Facts · ${decodeSegment((await params).chain_id)}` };
}

const FATE_WORDS: Record<FactFate, string> = {
  retained: "Retained",
  lost: "Lost",
  restored: "Restored",
  recoverable: "Recoverable",
};

export default async function ChainFactsPage({ params, searchParams }: Props) {
  await requirePage("/chains/{chain_id}/facts", await params);
  const chainId = decodeSegment((await params).chain_id);
  const query = parseSearchParams(factsPageParamsSchema, await searchParams);
  const [summary, ledger, page] = await Promise.all([
    getChainSummary(chainId),
    getFactLedger(chainId),
    listChainFacts(chainId, {
      fate: query.fate,
      q: query.q,
      limit: FACTS_PAGE_SIZE,
      after: query.before === undefined ? query.after : undefined,
      before: query.before,
    }),
  ]);
  if (!summary) notFound();
  const filters = { fate: query.fate, q: query.q };
  return (
    <>
      <ChainHeader summary={summary} now={new Date()} />
      <ChainTabs chainId={chainId} active="facts" />
      <section className="panel" aria-labelledby="facts-heading" data-testid="facts-tab">
        <h2 id="facts-heading">The fate of each fact</h2>
        {ledger === null ? (
          <p className="muted" data-testid="facts-none">
            No pass of this chain was measured against its source: a chain needs pass 1's input (or an original it
            names) and passes with content before the server can follow its facts.
          </p>
        ) : (
          <>
            <p className="subtitle" data-testid="facts-summary">
              {ledger.kept < ledger.in_source
                ? `The ${formatCount(ledger.kept)} heaviest of the source's ${formatCount(ledger.in_source)} facts`
                : `The source's ${formatCount(ledger.kept)} facts`}
              , by salience, as of pass {ledger.last_pass ?? "none"} ({formatCount(ledger.passes_folded)} measured{" "}
              {ledger.passes_folded === 1 ? "pass" : "passes"} followed).
            </p>
            <nav
              className="tabs"
              aria-label="Facts by fate"
              data-testid="facts-fates"
              // Five filters do not fit a phone's width on one line.
              style={{ flexWrap: "wrap" }}
            >
              <a href={chainFactsHref(chainId, { q: query.q })} aria-current={query.fate ? undefined : "page"}>
                All {formatCount(ledger.kept)}
              </a>
              {FACT_FATES.map((fate) => (
                <a
                  key={fate}
                  href={chainFactsHref(chainId, { fate, q: query.q })}
                  aria-current={query.fate === fate ? "page" : undefined}
                  data-testid={`facts-fate-${fate}`}
                >
                  {FATE_WORDS[fate]} {formatCount(ledger.counts[fate])}
                </a>
              ))}
            </nav>
            <search aria-label="Find a fact">
              <form method="get" action={chainFactsHref(chainId)} className="toolbar">
                {query.fate ? <input type="hidden" name="fate" value={query.fate} /> : null}
                <label>
                  <span className="visually-hidden">Find a fact</span>
                  <input
                    type="search"
                    name="q"
                    placeholder="Find a fact…"
                    defaultValue={query.q ?? ""}
                    maxLength={256}
                    data-testid="facts-q"
                  />
                </label>
                <button type="submit">Find</button>
              </form>
            </search>
            <FactsTable chainId={chainId} facts={page.items} />
            <Pager
              label="Facts pages"
              testId="facts-pager"
              steps={[
                {
                  href:
                    query.after !== undefined || query.before !== undefined ? chainFactsHref(chainId, filters) : null,
                  text: "First",
                },
                {
                  href: page.prev === null ? null : chainFactsHref(chainId, { ...filters, before: page.prev }),
                  text: "← Previous",
                  rel: "prev",
                },
                {
                  href: page.next === null ? null : chainFactsHref(chainId, { ...filters, after: page.next }),
                  text: "Next →",
                  rel: "next",
                  testId: "facts-next",
                },
              ]}
            />
          </>
        )}
      </section>
    </>
  );
}
