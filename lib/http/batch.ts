import type { z } from "zod";
import { ApiError, zodIssues, type ErrorIssue } from "../errors";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Validates every item of a batch and reports each bad one by index, so a client can fix
 * them all at once; any bad item fails the whole batch. `fast`, when given, is tried first:
 * a hand-written check that accepts only items the schema accepts, with the same result,
 * and answers null for anything else (the schema then decides, and words the errors).
 */
export function parseItems<S extends z.ZodType>(
  items: unknown[],
  schema: S,
  prefix: string | null,
  max: number,
  fast?: (item: unknown) => z.infer<S> | null,
): z.infer<S>[] {
  if (items.length === 0) {
    throw new ApiError("validation_failed", "The batch is empty; send at least one item.", {
      issues: [{ path: prefix ?? "", message: "must contain at least one item" }],
    });
  }
  if (items.length > max) {
    throw new ApiError(
      "validation_failed",
      `The batch has ${items.length} items; at most ${max} are accepted at once.`,
      {
        issues: [{ path: prefix ?? "", message: `must contain at most ${max} items` }],
      },
    );
  }
  const issues: ErrorIssue[] = [];
  const parsed: z.infer<S>[] = [];
  items.forEach((item, index) => {
    const quick = fast?.(item);
    if (quick) {
      parsed.push(quick);
      return;
    }
    const result = schema.safeParse(item);
    if (result.success) parsed.push(result.data);
    else issues.push(...zodIssues(result.error, prefix === null ? [index] : [prefix, index]));
  });
  if (issues.length > 0) {
    const bad = new Set(
      issues.map((i) =>
        i.path
          .split(".")
          .slice(0, prefix === null ? 1 : 2)
          .join("."),
      ),
    );
    throw new ApiError(
      "validation_failed",
      `${bad.size} of ${items.length} item(s) are not valid (first: ${issues[0]?.path}); nothing was written.`,
      { issues },
    );
  }
  return parsed;
}

const singular = (plural: string) => plural.replace(/ies$/, "y").replace(/s$/, "");

/** A body that is either one item or `{ [key]: [...items] }`; `fast` as for parseItems. */
export function parseOneOrBatch<S extends z.ZodType>(
  body: unknown,
  schema: S,
  key: string,
  max: number,
  fast?: (item: unknown) => z.infer<S> | null,
): { items: z.infer<S>[]; batch: boolean } {
  if (isPlainObject(body) && key in body) {
    const items = body[key];
    if (!Array.isArray(items)) {
      throw new ApiError("validation_failed", `'${key}' must be an array.`, {
        issues: [{ path: key, message: "must be an array" }],
      });
    }
    return { items: parseItems(items, schema, key, max, fast), batch: true };
  }
  if (!isPlainObject(body)) {
    throw new ApiError("validation_failed", `Send one object, or {"${key}": [...]} for a batch.`, {
      issues: [{ path: "", message: "must be a JSON object" }],
    });
  }
  const quick = fast?.(body);
  if (quick) return { items: [quick], batch: false };
  const result = schema.safeParse(body);
  if (!result.success) {
    const issues = zodIssues(result.error);
    throw new ApiError(
      "validation_failed",
      `The ${singular(key)} is not valid (first at ${issues[0]?.path || "the top level"}); nothing was written.`,
      { issues },
    );
  }
  return { items: [result.data], batch: false };
}

/** Validates a whole body against one schema. */
export function parseBody<S extends z.ZodType>(body: unknown, schema: S): z.infer<S> {
  const result = schema.safeParse(body);
  if (!result.success) {
    const issues = zodIssues(result.error);
    throw new ApiError(
      "validation_failed",
      `The request body is not valid (first at ${issues[0]?.path || "the top level"}).`,
      { issues },
    );
  }
  return result.data;
}
