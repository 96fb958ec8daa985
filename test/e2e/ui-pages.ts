// Every page of the dashboard, for the checks that must hold on all of them (accessibility,
// phone width, screenshots). Pages whose URL holds an id take it from the demo data.
import type { APIRequestContext } from "@playwright/test";

export interface PageCase {
  name: string;
  path: string;
  /** Markup we do not write (the Scalar API reference): checked for width, not by axe. */
  thirdParty?: boolean;
}

export async function everyPage(request: APIRequestContext): Promise<PageCase[]> {
  const originals = (await (await request.get("/api/v1/originals?limit=1")).json()) as { items: { hash: string }[] };
  const traces = (await (await request.get("/api/v1/traces?limit=1")).json()) as { items: { trace_id: string }[] };
  const hash = originals.items[0]?.hash;
  const traceId = traces.items[0]?.trace_id;
  if (!hash || !traceId) throw new Error("the demo data has no original or no trace");
  return [
    { name: "overview", path: "/" },
    { name: "chains", path: "/chains" },
    { name: "chain", path: "/chains/demo-schema-truncation" },
    { name: "chain-pass", path: "/chains/demo-schema-truncation?pass=demo-schema-truncation.p5&from=5" },
    { name: "chain-waiting", path: "/chains/no-receipts-yet" },
    { name: "action-space", path: "/chains/demo-healthy-orders/action-space" },
    { name: "facts", path: "/chains/demo-facts-restored/facts?fate=recoverable" },
    { name: "policies", path: "/policies" },
    { name: "policy", path: "/policies?class=summary" },
    { name: "originals", path: "/originals" },
    { name: "original", path: `/originals/${hash}` },
    { name: "traces", path: "/traces" },
    { name: "trace", path: `/traces/${encodeURIComponent(traceId)}` },
    { name: "webhooks", path: "/webhooks" },
    { name: "keys", path: "/admin/keys" },
    { name: "operators", path: "/admin/operators" },
    { name: "sign-in", path: "/sign-in" },
    { name: "api-reference", path: "/docs/api", thirdParty: true },
    { name: "not-found", path: "/no-such-page" },
  ];
}
