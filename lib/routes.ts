// Every link the dashboard builds, in one place. Ids are percent-encoded here and nowhere
// else: chain, pass and trace ids are free text (spaces, slashes, "?", "#") and an unescaped
// one silently opens the wrong page.

type QueryValues = Record<string, string | number | null | undefined>;

/** A URL with the given query, dropping empty values so links stay short. */
export function hrefWith(pathname: string, query: QueryValues): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== null && value !== undefined && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `${pathname}?${text}` : pathname;
}

const segment = (id: string) => encodeURIComponent(id);

/** The chains list, with filters, sort and page. */
export function chainsHref(query: QueryValues = {}): string {
  return hrefWith("/chains", query);
}

/**
 * A chain's page. `pass` opens that pass's detail; `from` pages the passes table to start at a
 * pass number; the rest are the passes table's own state.
 */
export function chainHref(
  chainId: string,
  query: { pass?: string | null; from?: number; after?: string; before?: string; size?: number } = {},
): string {
  return hrefWith(`/chains/${segment(chainId)}`, query);
}

export function actionSpaceHref(chainId: string): string {
  return `/chains/${segment(chainId)}/action-space`;
}

/** A chain's facts ledger (docs/facts.md): filtered by fate, searched, paged by rank. */
export function chainFactsHref(
  chainId: string,
  query: { fate?: string; q?: string; after?: number; before?: number } = {},
): string {
  return hrefWith(`/chains/${segment(chainId)}/facts`, query);
}

export function originalHref(hash: string): string {
  return `/originals/${segment(hash)}`;
}

/** An original's stored text (whole, a slice of it, or as a download), served by the page's own route. */
export function originalContentHref(
  hash: string,
  part: "original" | "compressed",
  query: { offset?: number; length?: number; download?: 1 } = {},
): string {
  return hrefWith(`/originals/${segment(hash)}/content`, { part, ...query });
}

export function traceHref(traceId: string): string {
  return `/traces/${segment(traceId)}`;
}

export function policiesHref(query: QueryValues = {}): string {
  return hrefWith("/policies", query);
}

export function chainsExportHref(format: "csv" | "json", query: QueryValues): string {
  return hrefWith("/api/v1/exports/chains", { format, ...query });
}

/** The traces list with its search, filters and both lists' pages. */
export function tracesHref(query: QueryValues = {}): string {
  return hrefWith("/traces", query);
}

/**
 * The live feed of a chain's new passes and boundaries (server-sent events). `wait` keeps the
 * feed open for a chain that has no receipt yet, until its first one arrives.
 */
export function chainEventsHref(chainId: string, query: { wait?: 1 } = {}): string {
  return hrefWith(`/api/v1/chains/${segment(chainId)}/events`, query);
}

/** One content class's policy in the API, where the dashboard saves a new floor. */
export function policyApiHref(contentClass: string): string {
  return `/api/v1/policies/${segment(contentClass)}`;
}

/** The Webhooks page; `id` opens that webhook's delivery log. */
export function webhooksHref(query: { id?: string } = {}): string {
  return hrefWith("/webhooks", query);
}

/** The webhooks API: the collection, one webhook, or one of its actions (`test`). */
export function webhookApiHref(id?: string, action?: "test" | "deliveries"): string {
  if (id === undefined) return "/api/v1/webhooks";
  return `/api/v1/webhooks/${segment(id)}${action ? `/${action}` : ""}`;
}
