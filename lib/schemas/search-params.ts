// The URL state of every dashboard page, parsed once with zod so that a view is a shareable
// link. Pages never fail on a hand-edited URL: a value that does not parse falls back to
// its default.
import { z } from "zod";
import { chainListQuerySchema } from "./chains";
import { contentClassSchema } from "./common";
import { DEFAULT_RANGE, RANGE_KEYS, type RangeKey } from "../chains/overview";

export type RawSearchParams = Record<string, string | string[] | undefined>;

/** Next.js hands repeated keys over as arrays; like the API, the first value wins. */
export function firstValues(raw: RawSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined && first !== "") out[key] = first;
  }
  return out;
}

/** Keyset cursor [pass_number, row id] as it appears in the URL: "12.3456". */
const passCursorSchema = z
  .string()
  .regex(/^\d{1,16}\.\d{1,16}$/)
  .transform((v) => v.split(".").map(Number) as [number, number]);

export function formatPassCursor(cursor: readonly [number, number]): string {
  return `${cursor[0]}.${cursor[1]}`;
}

export const PASS_PAGE_SIZES = [25, 50, 100, 200] as const;

export const chainPageParamsSchema = z.object({
  pass: z.string().max(256).optional().catch(undefined),
  after: passCursorSchema.optional().catch(undefined),
  before: passCursorSchema.optional().catch(undefined),
  from: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().catch(undefined),
  size: z.coerce
    .number()
    .pipe(z.union(PASS_PAGE_SIZES.map((n) => z.literal(n))))
    .default(50)
    .catch(50),
});
export type ChainPageParams = z.infer<typeof chainPageParamsSchema>;

export function parseChainPageParams(raw: RawSearchParams): ChainPageParams {
  return chainPageParamsSchema.parse(firstValues(raw));
}

/** The chains list: the API's filters with its defaults, every bad value dropped rather than refused. */
const chainsShape = chainListQuerySchema.shape;
export const chainsPageParamsSchema = z.object({
  status: chainsShape.status.catch(undefined),
  content_class: chainsShape.content_class.catch(undefined),
  q: chainsShape.q.catch(undefined),
  sort: chainsShape.sort.catch("last_activity"),
  order: chainsShape.order.catch(undefined),
  cursor: z.string().max(512).optional().catch(undefined),
  dir: z.enum(["next", "prev"]).default("next").catch("next"),
  limit: z.coerce
    .number()
    .pipe(z.union(PASS_PAGE_SIZES.map((n) => z.literal(n))))
    .default(50)
    .catch(50),
});
export type ChainsPageParams = z.infer<typeof chainsPageParamsSchema>;

export function parseChainsPageParams(raw: RawSearchParams): ChainsPageParams {
  return chainsPageParamsSchema.parse(firstValues(raw));
}

/** A URL with the given params, dropping empty ones so links stay short. */
export function hrefWith(pathname: string, params: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== null && value !== undefined && value !== "") search.set(key, String(value));
  }
  const query = search.toString();
  return query ? `${pathname}?${query}` : pathname;
}

export const overviewParamsSchema = z.object({
  range: z
    .enum(RANGE_KEYS as [RangeKey, ...RangeKey[]])
    .default(DEFAULT_RANGE)
    .catch(DEFAULT_RANGE),
});
export type OverviewParams = z.infer<typeof overviewParamsSchema>;

export function parseOverviewParams(raw: RawSearchParams): OverviewParams {
  return overviewParamsSchema.parse(firstValues(raw));
}

const optionalNumber = <T extends z.ZodType<number>>(schema: T) =>
  z.preprocess((v) => (v === undefined || v === "" ? undefined : v), schema.optional());

/**
 * /policies: the class in view and, when asked for, a candidate floor to replay its chains
 * under. Candidate fields use the wire names; each must be valid or the what-if is not run.
 */
export const policiesParamsSchema = z.object({
  class: contentClassSchema.optional().catch(undefined),
  min_size_bytes: optionalNumber(z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER)),
  min_semantic_density: optionalNumber(z.coerce.number().min(0).max(1)),
  max_pass_number: optionalNumber(z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER)),
  chain: z.string().max(256).optional().catch(undefined),
});

export interface PoliciesParams {
  class?: string;
  candidate: { min_size_bytes: number; min_semantic_density: number; max_pass_number: number } | null;
  /** A candidate was asked for but a field is missing or out of range. */
  candidateError: string | null;
  chain?: string;
}

export function parsePoliciesParams(raw: RawSearchParams): PoliciesParams {
  const values = firstValues(raw);
  const asked = ["min_size_bytes", "min_semantic_density", "max_pass_number"].some((k) => k in values);
  const parsed = policiesParamsSchema.safeParse(values);
  if (!parsed.success) {
    const base = policiesParamsSchema.pick({ class: true, chain: true }).parse(values);
    const issue = parsed.error.issues[0];
    return { ...base, candidate: null, candidateError: `${issue.path.join(".")} ${issue.message}` };
  }
  const { min_size_bytes, min_semantic_density, max_pass_number, ...rest } = parsed.data;
  if (min_size_bytes === undefined || min_semantic_density === undefined || max_pass_number === undefined) {
    return {
      ...rest,
      candidate: null,
      candidateError: asked ? "Give all three of minimum size, minimum density and maximum pass number." : null,
    };
  }
  return { ...rest, candidate: { min_size_bytes, min_semantic_density, max_pass_number }, candidateError: null };
}

/**
 * A dynamic segment of a page's URL as the id it encodes. Next.js hands pages the segment
 * still percent-encoded (route handlers get it decoded: vercel/next.js#64952), so
 * `/chains/a%20b` must be read as chain "a b". A segment that is not valid encoding is kept as is.
 */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
