// readJsonBody + parseJsonBody must answer exactly what readJson answers, value or error, for
// any body however it arrives (the evaluate endpoint reads with them, everything else with
// readJson); ASCII bodies come back as their bytes, others as text.
import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/errors";
import { MiB, parseJsonBody, readJson, readJsonBody, releaseBodyBytes } from "@/lib/http/body";

/** A request whose body arrives as `chunks`, then ends, or fails when `failure` is given. */
function request(chunks: Uint8Array[], headers: Record<string, string> = {}, failure?: Error): Request {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      if (failure) controller.error(failure);
      else controller.close();
    },
  });
  return new Request("http://localhost/api/v1/evaluate", {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
    duplex: "half",
  } as RequestInit);
}

async function outcome(read: () => Promise<unknown>): Promise<unknown> {
  try {
    return { value: await read() };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { code: error.code, status: error.status, message: error.message };
  }
}

const utf8 = (text: string) => new TextEncoder().encode(text);
const split = (bytes: Uint8Array, ...at: number[]) =>
  [0, ...at].map((start, i) => bytes.subarray(start, at[i] ?? bytes.length));

const bodies: [name: string, chunks: Uint8Array[], headers?: Record<string, string>][] = [
  ["ASCII, one chunk", [utf8('[{"a": 1}, "x"]')]],
  ["ASCII, several chunks", split(utf8('[{"pass": {"pass_id": "p"}}]'), 3, 9, 10)],
  ["UTF-8 after ASCII chunks", split(utf8('{"a": "é😀", "b": 2}'), 4, 10)],
  ["a character split across chunks", split(utf8('{"a": "😀"}'), 8)],
  ["a byte-order mark first", [new Uint8Array([0xef, 0xbb, 0xbf]), utf8("[1]")]],
  ["a byte-order mark later", [utf8("[1,"), new Uint8Array([0xef, 0xbb, 0xbf]), utf8("2]")]],
  ["invalid UTF-8", [utf8('{"a": "'), new Uint8Array([0xc3, 0x28]), utf8('"}')]],
  ["empty", []],
  ["whitespace", [utf8(" \n\t ")]],
  ["not JSON", [utf8("[1, 2")]],
  ["no JSON type", [utf8("[1]")], { "content-type": "text/plain" }],
  ["compressed", [utf8("[1]")], { "content-encoding": "gzip" }],
  ["declared too large", [utf8("[1]")], { "content-length": String(11 * MiB) }],
  ["too large", [new Uint8Array(6 * MiB).fill(0x20), new Uint8Array(6 * MiB).fill(0x20)]],
];

describe("readJsonBody + parseJsonBody", () => {
  it.each(bodies)("%s: what readJson answers", async (_name, chunks, headers) => {
    const first = request(chunks, headers);
    const second = request(chunks, headers);
    const split = await outcome(async () => parseJsonBody(await readJsonBody(first)));
    const whole = await outcome(() => readJson(second));
    releaseBodyBytes(first);
    releaseBodyBytes(second);
    expect(split).toEqual(whole);
  });

  it("answers an ASCII body as its bytes and any other as text", async () => {
    const ascii = await readJsonBody(request(split(utf8('{"a": [1, 2]}'), 2, 5)));
    expect(Buffer.isBuffer(ascii) && ascii.toString("latin1")).toBe('{"a": [1, 2]}');
    const text = await readJsonBody(request(split(utf8('{"a": "é"}'), 2)));
    expect(text).toBe('{"a": "é"}');
  });

  it("refuses a body cut off part-way as cut off, not as undecodable", async () => {
    const cut = (read: (r: Request) => Promise<unknown>) =>
      outcome(() => read(request([utf8('[{"a": 1},')], {}, new TypeError("terminated"))));
    for (const answer of [await cut(readJson), await cut(readJsonBody)]) {
      expect(answer).toMatchObject({ code: "bad_request", status: 400 });
      expect((answer as { message: string }).message).toMatch(/cut off/);
      expect((answer as { message: string }).message).not.toMatch(/UTF-8/);
    }
  });

  it("throws what a chunk callback throws as it is", async () => {
    const failure = new RangeError("the callback failed");
    const reading = readJsonBody(request(split(utf8("[1, 2, 3]"), 3)), undefined, () => {
      throw failure;
    });
    await expect(reading).rejects.toBe(failure);
  });
});
