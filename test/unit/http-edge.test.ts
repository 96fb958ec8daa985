// lib/http and lib/errors on their own: body reading, batch validation, cursors, and the
// error contract. The routes' use of them is covered in test/integration.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { bodyDigest, canonicalJson } from "@/lib/guard/canonical";
import { ApiError, isDatabaseUnavailable, toErrorResponse } from "@/lib/errors";
import { parseItems, parseOneOrBatch } from "@/lib/http/batch";
import { readJson } from "@/lib/http/body";
import { cursorParam, cursorPart, decodeCursor, encodeCursor } from "@/lib/http/cursor";
import { limitSchema, parseSearchParams } from "@/lib/http/list";
import { decodeChainCursor } from "@/lib/schemas/chains";
import { decodeOriginalCursor } from "@/lib/schemas/originals";
import { jsonObject, nullMeansAbsent, text, timestampSchema } from "@/lib/schemas/common";

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected an ApiError");
}

function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected an ApiError");
}

const post = (body: BodyInit | null, headers: Record<string, string> = { "content-type": "application/json" }) =>
  new Request("http://localhost/x", { method: "POST", body, headers });

describe("readJson", () => {
  it("parses JSON, with or without a charset", async () => {
    expect(await readJson(post('{"a":1}'))).toEqual({ a: 1 });
    expect(await readJson(post("[1]", { "content-type": "application/json; charset=utf-8" }))).toEqual([1]);
  });

  it("refuses a body with no content type with 415: a web page can send one without asking", async () => {
    const error = await rejection(
      readJson(new Request("http://localhost/x", { method: "POST", body: new Uint8Array(Buffer.from("{}")) })),
    );
    expect([error.status, error.code]).toEqual([415, "unsupported_media_type"]);
  });

  it("refuses other content types with 415", async () => {
    expect((await rejection(readJson(post("{}", { "content-type": "text/plain" })))).status).toBe(415);
    expect((await rejection(readJson(post("{}", { "content-type": "application/jsonp" })))).status).toBe(415);
  });

  it("refuses a compressed body with 415 rather than failing to read it", async () => {
    const error = await rejection(
      readJson(post("{}", { "content-type": "application/json", "content-encoding": "gzip" })),
    );
    expect([error.status, error.code]).toEqual([415, "unsupported_media_type"]);
    expect(await readJson(post("{}", { "content-type": "application/json", "content-encoding": "identity" }))).toEqual(
      {},
    );
  });

  it("refuses a body over the limit with 413, declared or streamed", async () => {
    expect((await rejection(readJson(post("[1,2,3]"), 4))).status).toBe(413);
    expect(
      (await rejection(readJson(post("[]", { "content-type": "application/json", "content-length": "5" }), 4))).status,
    ).toBe(413);
    expect(await readJson(post("[1]"), 3)).toEqual([1]);
  });

  it("answers 400 for malformed, empty, absent and non-UTF-8 bodies", async () => {
    for (const body of ['{"a":', "", "  ", null]) {
      const error = await rejection(readJson(post(body)));
      expect([error.status, error.code]).toEqual([400, "invalid_json"]);
    }
    const error = await rejection(readJson(post(new Uint8Array([0x22, 0xc3, 0x28, 0x22]))));
    expect(error.message).toMatch(/UTF-8/);
  });

  it("reads a body arriving in chunks, ASCII then not, as one UTF-8 decode of the whole would", async () => {
    const chunked = (...chunks: (string | number[])[]) =>
      new Request("http://localhost/x", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new ReadableStream<Uint8Array>({
          start(controller) {
            for (const c of chunks)
              controller.enqueue(typeof c === "string" ? new TextEncoder().encode(c) : new Uint8Array(c));
            controller.close();
          },
        }),
        duplex: "half",
      } as RequestInit);
    // "é" split across chunks after two ASCII ones.
    expect(await readJson(chunked('["ab', 'c", "', [0xc3], [0xa9, 0x22, 0x5d]))).toEqual(["abc", "\u00e9"]);
    // A byte-order mark inside the text is kept, also as the first bytes after ASCII chunks.
    expect(await readJson(chunked('["a", "', [0xef, 0xbb, 0xbf, 0x78], '"]'))).toEqual(["a", "\ufeffx"]);
    // One at the very start is dropped, as before.
    expect(await readJson(chunked([0xef, 0xbb, 0xbf], '{"a":1}'))).toEqual({ a: 1 });
    // A byte that is not UTF-8 after ASCII chunks is still refused.
    const error = await rejection(readJson(chunked('{"a":"', [0xc3, 0x28], '"}')));
    expect([error.status, error.message]).toEqual([400, expect.stringMatching(/UTF-8/)]);
    // Latin-1 bytes over 0x7f are not ASCII: never read as Latin-1.
    expect(await readJson(chunked('"', [0xc3, 0xbf], '"'))).toBe("\u00ff");
  });

  it("keeps astral characters and escaped lone surrogates as JSON.parse does (the schemas judge them)", async () => {
    expect(await readJson(post('"\u{1F600}"'))).toBe("\u{1F600}");
    expect(await readJson(post('"\\ud800"'))).toBe("\ud800");
  });
});

describe("parseItems / parseOneOrBatch", () => {
  const schema = z.object({ n: z.int().min(0) });

  it("names every bad item by index under the batch key", () => {
    const error = thrown(() => parseItems([{ n: 1 }, { n: -1 }, {}, { n: 2 }], schema, "things", 10));
    expect(error.status).toBe(422);
    expect(error.details.issues?.map((i) => i.path)).toEqual(["things.1.n", "things.2.n"]);
    expect(error.message).toMatch(/2 of 4/);
  });

  it("refuses empty and oversized batches", () => {
    expect(thrown(() => parseItems([], schema, "things", 10)).status).toBe(422);
    expect(thrown(() => parseItems([{ n: 1 }, { n: 1 }], schema, "things", 1)).details.issues).toEqual([
      { path: "things", message: "must contain at most 1 items" },
    ]);
  });

  it("tells one item from a batch, and names a single item's fields without an index", () => {
    expect(parseOneOrBatch({ n: 1 }, schema, "things", 10)).toEqual({ items: [{ n: 1 }], batch: false });
    expect(parseOneOrBatch({ things: [{ n: 1 }] }, schema, "things", 10)).toEqual({ items: [{ n: 1 }], batch: true });
    const single = thrown(() => parseOneOrBatch({ n: "1" }, schema, "boundaries", 10));
    expect(single.details.issues?.map((i) => i.path)).toEqual(["n"]);
    expect(single.message).toMatch(/^The boundary is not valid/);
    expect(thrown(() => parseOneOrBatch([{ n: 1 }], schema, "things", 10)).status).toBe(422);
    expect(thrown(() => parseOneOrBatch({ things: { n: 1 } }, schema, "things", 10)).details.issues).toEqual([
      { path: "things", message: "must be an array" },
    ]);
  });
});

describe("cursors and page sizes", () => {
  const timeAndText = z.tuple([cursorPart.timestamp, cursorPart.text]);

  it("round-trips a key", () => {
    expect(decodeCursor(encodeCursor(["2026-01-01T00:00:00.000Z", "c\u{1F600}"]), timeAndText)).toEqual([
      "2026-01-01T00:00:00.000Z",
      "c\u{1F600}",
    ]);
    const numberAndText = z.tuple([cursorPart.number, cursorPart.text]);
    expect(decodeCursor(encodeCursor([0.30000000000000004, "x"]), numberAndText)).toEqual([0.30000000000000004, "x"]);
    expect(decodeCursor(undefined, timeAndText)).toBeUndefined();
    expect(decodeCursor("", timeAndText)).toBeUndefined();
  });

  it.each([
    ["garbage", "%%%"],
    ["wrong arity", encodeCursor(["a"])],
    ["an object", Buffer.from('{"0":1}').toString("base64url")],
    ["null parts", encodeCursor([null, "x"] as never)],
    ["nested parts", encodeCursor([["a"], "x"] as never)],
    ["boolean parts", encodeCursor([true, "x"] as never)],
    ["a NUL in a part", encodeCursor(["a\u0000", "x"])],
  ])("refuses %s with 422 invalid_query", (_name, cursor) => {
    const error = thrown(() => decodeCursor(cursor, z.tuple([cursorPart.text, cursorPart.text])));
    expect([error.status, error.code]).toEqual([422, "invalid_query"]);
  });

  it("checks each part's type against the sort key", () => {
    expect(decodeCursor(encodeCursor(["2026-01-01T00:00:00.000Z", "c"]), timeAndText)).toEqual([
      "2026-01-01T00:00:00.000Z",
      "c",
    ]);
    expect(decodeCursor(undefined, timeAndText)).toBeUndefined();
    expect(thrown(() => decodeCursor(encodeCursor(["abc", "c"]), timeAndText)).code).toBe("invalid_query");
    expect(thrown(() => decodeCursor(encodeCursor([5, "c"]), z.tuple([z.string(), z.string()]))).code).toBe(
      "invalid_query",
    );
    expect(thrown(() => decodeCursor(encodeCursor(["a"]), timeAndText)).code).toBe("invalid_query");
  });

  it("takes only timestamps Postgres and JavaScript read alike", () => {
    for (const bad of [
      "2026-02-30T00:00:00.000Z",
      "0000-01-01T00:00:00.000Z",
      "+010000-01-01T00:00:00.000Z",
      "2026-01-01",
    ])
      expect(cursorPart.timestamp.safeParse(bad).success, bad).toBe(false);
    expect(cursorPart.timestamp.safeParse("1970-01-01T00:00:00.000Z").success).toBe(true);
  });

  it("types every list's cursor by its sort: a cursor of another sort is a 422", () => {
    const activity = encodeCursor(["2026-01-01T00:00:00.000Z", "chain"]);
    const count = encodeCursor([3, "chain"]);
    expect(decodeChainCursor(activity, "last_activity")).toEqual(["2026-01-01T00:00:00.000Z", "chain"]);
    expect(thrown(() => decodeChainCursor(activity, "pass_count")).code).toBe("invalid_query");
    expect(thrown(() => decodeChainCursor(count, "last_activity")).code).toBe("invalid_query");
    expect(thrown(() => decodeChainCursor(encodeCursor([2 ** 31, "c"]), "pass_count")).code).toBe("invalid_query");
    // The default order's key is urgency (0 to 2), last activity and chain id.
    const attention = encodeCursor([2, "2026-01-01T00:00:00.000Z", "chain"]);
    expect(decodeChainCursor(attention, "attention")).toEqual([2, "2026-01-01T00:00:00.000Z", "chain"]);
    expect(thrown(() => decodeChainCursor(activity, "attention")).code).toBe("invalid_query");
    expect(thrown(() => decodeChainCursor(attention, "last_activity")).code).toBe("invalid_query");
    for (const urgency of [3, -1, 1.5, "1"])
      expect(
        thrown(() => decodeChainCursor(encodeCursor([urgency, "2026-01-01T00:00:00.000Z", "c"]), "attention")).code,
      ).toBe("invalid_query");
    expect(decodeOriginalCursor(count, "size")).toEqual([3, "chain"]);
    expect(thrown(() => decodeOriginalCursor(count, "created")).code).toBe("invalid_query");
    expect(thrown(() => decodeOriginalCursor(activity, "retrievals")).code).toBe("invalid_query");
    expect(thrown(() => decodeOriginalCursor(encodeCursor([-1, "h"]), "size")).code).toBe("invalid_query");
    expect(thrown(() => decodeOriginalCursor(encodeCursor([1.5, "h"]), "size")).code).toBe("invalid_query");
  });

  it("reads the same cursor as URL state, a bad one failing the field rather than throwing", () => {
    const field = cursorParam(z.tuple([cursorPart.int, cursorPart.id]));
    expect(field.parse(encodeCursor([12, 345]))).toEqual([12, 345]);
    expect(field.safeParse(encodeCursor(["12", 345])).success).toBe(false);
    expect(field.safeParse("12.345").success).toBe(false);
  });

  it("takes limits as plain digits only", () => {
    expect(limitSchema.parse(undefined)).toBe(50);
    expect(limitSchema.parse("1")).toBe(1);
    expect(limitSchema.parse("500")).toBe(500);
    expect(limitSchema.parse("007")).toBe(7);
    for (const bad of ["0", "501", "abc", "1.5", "-1", "1e2", "0x10", "", " 5", "Infinity"])
      expect(limitSchema.safeParse(bad).success, bad).toBe(false);
  });

  it("parseSearchParams keeps the first of repeated keys and refuses NUL anywhere", () => {
    const schema = z.object({ q: z.string().optional(), other: z.string().optional() });
    expect(parseSearchParams("http://x/?q=a&q=b", schema)).toEqual({ q: "a" });
    const error = thrown(() => parseSearchParams("http://x/?q=ok&other=a%00b", schema));
    expect(error.details.issues).toEqual([{ path: "other", message: "must not contain NUL characters" }]);
  });
});

describe("schema helpers", () => {
  it("text() counts code points and refuses NUL and unpaired surrogates", () => {
    const t = text({ min: 1, max: 2 });
    expect(t.safeParse("\u{1F600}\u{1F600}").success).toBe(true);
    expect(t.safeParse("abc").success).toBe(false);
    expect(t.safeParse("").success).toBe(false);
    expect(t.safeParse("\u0000").success).toBe(false);
    expect(t.safeParse("\udc00").success).toBe(false);
  });

  it("timestamps must be RFC 3339 with a zone, in years 0001..9999 UTC", () => {
    for (const ok of [
      "2026-01-02T03:04:05Z",
      "2026-01-02T03:04:05.123456+05:30",
      "0001-01-01T00:00:00Z",
      "9999-12-31T23:59:59.999Z",
    ]) {
      expect(timestampSchema.safeParse(ok).success, ok).toBe(true);
    }
    for (const bad of [
      "2026-01-02",
      "2026-01-02T03:04:05",
      "0000-01-01T00:00:00Z",
      "0001-01-01T00:00:00+01:00",
      "9999-12-31T23:59:59-00:01",
      "2026-02-30T00:00:00Z",
    ]) {
      expect(timestampSchema.safeParse(bad).success, bad).toBe(false);
    }
  });

  it("jsonObject() bounds depth and size without recursion, and refuses unstorable text anywhere", () => {
    const schema = jsonObject(1024);
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(schema.safeParse({ a: deep }).error?.issues[0]?.message).toMatch(/nested at most/);
    let ok: unknown = 1;
    for (let i = 0; i < 63; i++) ok = [ok];
    expect(schema.safeParse({ a: ok }).success).toBe(true);
    expect(schema.safeParse({ a: "x".repeat(1024) }).success).toBe(false);
    expect(schema.safeParse({ a: [{ b: "\ud800" }] }).success).toBe(false);
    expect(schema.safeParse({ ["k\u0000"]: 1 }).success).toBe(false);
  });

  it("nullMeansAbsent() drops nulls of the listed keys only", () => {
    const schema = nullMeansAbsent(["opt"], z.object({ opt: z.string().nullish(), keep: z.string().nullable() }));
    expect(schema.parse({ opt: null, keep: null })).toEqual({ keep: null });
    expect(bodyDigest(schema.parse({ opt: null, keep: "k" }))).toBe(bodyDigest(schema.parse({ keep: "k" })));
  });
});

describe("canonical digests", () => {
  it("do not depend on key order at any depth, and do depend on values", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}',
    );
    expect(bodyDigest({ a: 1, b: 2 })).toBe(bodyDigest({ b: 2, a: 1 }));
    expect(bodyDigest({ a: [1, 2] })).not.toBe(bodyDigest({ a: [2, 1] }));
  });
});

describe("error contract", () => {
  it("an ApiError answers its status with {error: {code, message, issues?}}", async () => {
    const response = new ApiError("validation_failed", "Bad.", {
      issues: [{ path: "a.0", message: "m" }],
    }).toResponse();
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({
      error: { code: "validation_failed", message: "Bad.", issues: [{ path: "a.0", message: "m" }] },
    });
  });

  it("an unexpected error is a generic 500 that echoes nothing", async () => {
    const original = console.error;
    console.error = () => {};
    try {
      const response = toErrorResponse(new Error("secret detail at /srv/app.ts:12"));
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(text).not.toContain("secret");
      expect(JSON.parse(text).error.code).toBe("internal_error");

      const down = toErrorResponse(Object.assign(new Error("x"), { cause: { code: "ECONNREFUSED" } }));
      expect(down.status).toBe(503);
      expect(down.headers.get("retry-after")).toBe("5");
    } finally {
      console.error = original;
    }
  });

  it("knows a database outage by its codes, a bad query by none of them", () => {
    expect(isDatabaseUnavailable({ code: "08006" })).toBe(true);
    expect(isDatabaseUnavailable({ code: "57P01" })).toBe(true);
    expect(isDatabaseUnavailable({ cause: { cause: { code: "CONNECTION_CLOSED" } } })).toBe(true);
    expect(isDatabaseUnavailable({ code: "23505" })).toBe(false);
    expect(isDatabaseUnavailable(new Error("x"))).toBe(false);
  });
});
