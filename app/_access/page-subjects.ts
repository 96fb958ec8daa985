// The stored thing each page with a path parameter shows, and whether it exists: asked by the
// page gate (page-gate.ts) before the page streams, so that a page naming nothing answers 404.
// A streamed page has committed to 200 by the time its own lookup calls notFound() (every
// page sits under app/loading.tsx), so the page cannot say it itself. Each check asks what
// its page's lookup asks, with the id as the page reads it from its params; the page's
// notFound() stays the check of record. The type makes a new page with a parameter add one.
import "server-only";
import { chainExists } from "@/db/queries/chains";
import { originalKeyExists } from "@/db/queries/originals/view";
import { chainHasActionSpace } from "@/db/queries/action-space";
import { traceExists } from "@/db/queries/traces";
import type { PagePattern } from "@/lib/http/registry";
import { isStorableText } from "@/lib/schemas/common";
import { decodeSegment } from "@/lib/url-state";

type PageWithParams = Extract<PagePattern, `${string}{${string}`>;
type Params = Record<string, string>;

const SUBJECTS: Record<PageWithParams, (params: Params) => Promise<boolean>> = {
  "/chains/{chain_id}": (p) => chainExists(decodeSegment(p.chain_id ?? "")),
  "/chains/{chain_id}/action-space": (p) => chainHasActionSpace(decodeSegment(p.chain_id ?? "")),
  "/chains/{chain_id}/facts": (p) => chainExists(decodeSegment(p.chain_id ?? "")),
  "/originals/{hash}": (p) => originalKeyExists(p.hash ?? ""),
  "/traces/{trace_id}": (p) => traceExists(decodeSegment(p.trace_id ?? "")),
};

/** Whether every parameter could name something stored (no NUL, no unpaired surrogate). */
export function paramsStorable(params: Params): boolean {
  return Object.values(params).every((segment) => isStorableText(decodeSegment(segment)));
}

/** Whether the thing a page's params name is stored; a page without params names nothing to look up. */
export async function pageSubjectExists(pattern: string, params: Params): Promise<boolean> {
  if (!paramsStorable(params)) return false;
  const exists = (SUBJECTS as Partial<Record<string, (params: Params) => Promise<boolean>>>)[pattern];
  return exists ? exists(params) : true;
}
