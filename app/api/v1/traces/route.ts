import { z } from "zod";
import { listTraces, storeTrace } from "@/db/queries/traces";
import { readJson } from "@/lib/http/body";
import { parseBody } from "@/lib/http/batch";
import { decodeCursor, encodeCursor, limitSchema, parseSearchParams } from "@/lib/http/list";
import { json, route } from "@/lib/http/route";
import { traceSubmissionSchema } from "@/lib/schemas/traces";

export const POST = route(async (request) => {
  const submission = parseBody(await readJson(request), traceSubmissionSchema);
  const { trace, created } = await storeTrace(submission);
  return json(trace, created ? 201 : 200);
});

const listQuerySchema = z.object({
  chain_id: z.string().max(256).optional(),
  mismatch: z.enum(["true", "false"]).transform((v) => v === "true").optional(),
  q: z.string().max(256).optional(),
  cursor: z.string().optional(),
  limit: limitSchema,
});

export const GET = route(async (request) => {
  const query = parseSearchParams(request.url, listQuerySchema);
  const after = decodeCursor(query.cursor, 2) as [string, string] | undefined;
  const { items, next } = await listTraces({ ...query, after });
  return json({ items, next_cursor: next ? encodeCursor(next) : null });
});
