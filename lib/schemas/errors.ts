// The error contract's body (lib/errors.ts builds it), as the OpenAPI document shows it.
import { z } from "zod";

const errorIssueSchema = z.object({ path: z.string(), message: z.string() });

export const errorBodySchema = z
  .object({
    error: z
      .looseObject({
        code: z.string().regex(/^[a-z][a-z0-9_]*$/),
        message: z.string().min(1),
        issues: z.array(errorIssueSchema).optional(),
      })
      .describe("Some codes add fields (`node_id`, `candidates`, `gone_at`, `retryable`, ...)."),
  })
  .meta({ id: "Error" });
