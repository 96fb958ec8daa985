// /policies' URL state: the class in view and, when asked for, a candidate floor to replay
// its chains under. Candidate fields use the wire names; each must be valid or the what-if
// is not run, and the page says why.
import { z } from "zod";
import { contentClassSchema } from "@/lib/schemas/common";
import { firstValues, type RawSearchParams } from "@/lib/url-state";

const optionalNumber = <T extends z.ZodType<number>>(schema: T) =>
  z.preprocess((v) => (v === undefined || v === "" ? undefined : v), schema.optional());

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

/** Unlike the other families', a bad candidate is reported rather than dropped: the user typed it. */
export function parsePoliciesParams(raw: RawSearchParams): PoliciesParams {
  const values = firstValues(raw);
  const asked = ["min_size_bytes", "min_semantic_density", "max_pass_number"].some((k) => k in values);
  const parsed = policiesParamsSchema.safeParse(values);
  if (!parsed.success) {
    const base = policiesParamsSchema.pick({ class: true, chain: true }).parse(values);
    const issue = parsed.error.issues[0];
    const candidateError = issue ? `${issue.path.join(".")} ${issue.message}` : "The candidate is not valid.";
    return { ...base, candidate: null, candidateError };
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
