// The background loops log failures through the redacting helper: a failed statement's error
// carries its parameters and PostgreSQL's detail, which quote what was being written (a
// receiver's answer, a chain's name, content). Real failures of a real database, raised by a
// trigger, and everything the loops hand to the logger or the console is searched for them.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { getDb } from "@/db/index";
import { ingestPasses } from "@/db/ingest/passes";
import { createWebhook, enqueueTestEvent } from "@/db/queries/webhooks";
import { startRetentionWorker } from "@/db/workers/retention";
import { startWebhookWorker } from "@/db/workers/webhook-delivery";
import { logger } from "@/lib/observability/log";
import { passReceiptSchema } from "@/lib/schemas/passes";
import { setUpTestDatabase } from "../support/database";

setUpTestDatabase();

const ANSWER_SECRET = "sk-live-answer-7f3a9c";
const CHAIN_SECRET = "sk-live-chain-41d0e2";

// A receiver whose error answer quotes a credential, as misconfigured ones do.
const receiver = createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    response.writeHead(500, { "content-type": "text/plain" });
    response.end(`upstream refused token=${ANSWER_SECRET}`);
  });
});
let receiverUrl = "";
beforeAll(async () => {
  process.env.FLOORLINE_WEBHOOK_ALLOW_PRIVATE = "1";
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  delete process.env.FLOORLINE_WEBHOOK_ALLOW_PRIVATE;
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});
afterEach(() => vi.restoreAllMocks());

/** Everything logged while `run` runs, as the text a log line would carry. */
async function captureLogs(run: () => Promise<void>): Promise<{ text: string }> {
  const calls: unknown[][] = [];
  const record = (...args: unknown[]) => void calls.push(args);
  for (const method of ["error", "warn", "info", "log"] as const) vi.spyOn(console, method).mockImplementation(record);
  for (const level of ["fatal", "error", "warn", "info"] as const) {
    vi.spyOn(logger, level).mockImplementation(record as never);
  }
  await run();
  vi.restoreAllMocks();
  return { text: calls.map((args) => inspect(args, { depth: 12 })).join("\n") };
}

async function until(check: () => boolean, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("background loops log errors without the data they carried", () => {
  it("the webhook worker, when recording an attempt fails", async () => {
    const db = await getDb();
    const hook = await createWebhook({ url: receiverUrl, events: ["chain.collapsed"], format: "json" }, "whsec_x");
    await db.execute(sql`
      create function refuse_delivery_log() returns trigger language plpgsql as $$
      begin
        if new.last_error is distinct from old.last_error then
          raise exception 'delivery log refused' using detail = new.last_error;
        end if;
        return new;
      end $$`);
    await db.execute(sql`
      create trigger refuse_delivery_log before update on webhook_deliveries
      for each row execute function refuse_delivery_log()`);
    try {
      await enqueueTestEvent(hook.id);
      const logs = await captureLogs(async () => {
        const worker = startWebhookWorker({ pollMs: 50 });
        await until(() => vi.mocked(logger.error).mock.calls.length + vi.mocked(console.error).mock.calls.length > 0);
        await worker.stop();
      });
      expect(logs.text).toContain("delivery log refused");
      expect(logs.text).not.toContain(ANSWER_SECRET);
    } finally {
      await db.execute(sql`drop trigger refuse_delivery_log on webhook_deliveries`);
      await db.execute(sql`drop function refuse_delivery_log()`);
    }
  });

  it("the retention worker, when a deletion fails", async () => {
    const db = await getDb();
    await ingestPasses([
      passReceiptSchema.parse({
        chain_id: CHAIN_SECRET,
        pass_id: `${CHAIN_SECRET}.p1`,
        pass_number: 1,
        current_content_hash: "h1",
        current_size_bytes: 100,
        is_parseable: true,
        schema_valid: true,
        semantic_density_score: 0.9,
      }),
    ]);
    await db.execute(sql`
      create function refuse_chain_delete() returns trigger language plpgsql as $$
      begin
        raise exception 'chain deletion refused' using detail = 'chain ' || old.chain_id;
      end $$`);
    await db.execute(sql`
      create trigger refuse_chain_delete before delete on chains
      for each row execute function refuse_chain_delete()`);
    try {
      const logs = await captureLogs(async () => {
        const worker = startRetentionWorker({
          days: 1,
          intervalMs: 50,
          now: () => new Date(Date.now() + 400 * 86_400_000),
        });
        await until(() => vi.mocked(logger.error).mock.calls.length + vi.mocked(console.error).mock.calls.length > 0);
        await worker.stop();
      });
      expect(logs.text).toContain("chain deletion refused");
      expect(logs.text).not.toContain(CHAIN_SECRET);
    } finally {
      await db.execute(sql`drop trigger refuse_chain_delete on chains`);
      await db.execute(sql`drop function refuse_chain_delete()`);
    }
  });
});
