// Shared by the API integration suites: call a handler, check the error contract, and
// count rows so a test can prove that a refused request wrote nothing.
import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { expect } from "vitest";
import { getDb, summariesSettled } from "@/db/index";
import { col, onlyRow, queryRows } from "@/db/sql";
import { sha256Hex } from "@/lib/guard/hash";
import { jsonRequest } from "../support/database";

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

type Handler<C> = (request: Request, context: C) => Promise<Response>;

export async function call<C = { params: Promise<Record<string, string>> }>(
  handler: Handler<C>,
  request: Request,
  context: C = { params: Promise.resolve({}) } as C,
): Promise<Answer> {
  const response = await handler(request, context);
  const text = await response.text();
  // What an ingest stored is folded into the chain summaries right after it answers: the
  // tests read the database as a page of this process would, once that is done.
  await summariesSettled();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

export const post = <C>(handler: Handler<C>, path: string, body: unknown, context?: C) =>
  call(handler, jsonRequest(path, { body }), context);

/** Asserts the contract's error body exactly: {"error": {"code", "message", "issues"?}}. */
export function expectError(
  answer: Answer,
  status: number,
  code: string,
): { code: string; message: string; issues?: Array<{ path: string; message: string }> } {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
  expect(Object.keys(answer.body)).toEqual(["error"]);
  const error = answer.body.error;
  expect(error.code).toBe(code);
  expect(typeof error.message).toBe("string");
  expect(error.message.length).toBeGreaterThan(0);
  expect(answer.text).not.toMatch(/\n\s+at |node_modules|<html/i);
  if (error.issues !== undefined) {
    expect(Array.isArray(error.issues)).toBe(true);
    for (const issue of error.issues) {
      expect(Object.keys(issue).sort()).toEqual(["message", "path"]);
      expect(typeof issue.path).toBe("string");
      expect(typeof issue.message).toBe("string");
    }
  }
  return error;
}

/** Issue paths of a 422, for asserting which items and fields were named. */
export function issuePaths(answer: Answer): string[] {
  return (answer.body?.error?.issues ?? []).map((i: { path: string }) => i.path);
}

const TABLES = ["passes", "boundaries", "chains", "policies", "traces", "trace_rejections"] as const;
export type TableCounts = Record<(typeof TABLES)[number], number>;

export async function countRows(): Promise<TableCounts> {
  await summariesSettled();
  const db = await getDb();
  const counts = {} as TableCounts;
  for (const table of TABLES) {
    const { n } = onlyRow(await queryRows(db, sql`select count(*) as n from ${sql.identifier(table)}`, { n: col.int }));
    counts[table] = n;
  }
  return counts;
}

/** The full content of the written tables, to prove that nothing changed (not only the counts). */
export async function tableFingerprint(): Promise<string> {
  await summariesSettled();
  const db = await getDb();
  const parts: string[] = [];
  for (const table of TABLES) {
    const { t } = onlyRow(
      await queryRows(
        db,
        sql`select coalesce(string_agg(md5(x::text), ',' order by md5(x::text)), '') as t from ${sql.identifier(table)} as x`,
        { t: col.text },
      ),
    );
    parts.push(`${table}:${t}`);
  }
  return parts.join("|");
}

export interface GuardVector {
  pass: Record<string, unknown>;
  policy: Record<string, unknown>;
  expect: { verdict: string; directive: string; manifest_digest: string };
}

export interface TraceVector {
  nodes: Array<Record<string, unknown>>;
  expect: Record<string, unknown> & ({ residual_digest: string } | { error: string; node_id: string });
}

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(path.join(__dirname, "../fixtures", name), "utf8")) as T;
export const guardVectors = (): GuardVector[] => fixture("guard-public.json");
export const traceVectors = (): TraceVector[] => fixture("trace-public.json");

/**
 * A pass receipt whose hash and size are those of `content` (sent along unless null), judged
 * safe by its client; `extra` adds or replaces fields.
 */
export function contentReceipt(
  chainId: string,
  passNumber: number,
  content: string | null,
  extra: Record<string, unknown> = {},
) {
  const text = content ?? "";
  return {
    chain_id: chainId,
    pass_id: `${chainId}.p${passNumber}`,
    pass_number: passNumber,
    current_content_hash: sha256Hex(text),
    current_size_bytes: Buffer.byteLength(text),
    is_parseable: true,
    schema_valid: true,
    semantic_density_score: 0.9,
    ...(content === null ? {} : { content }),
    ...extra,
  };
}
