// floorlineMiddleware in the real createAgent (langchain v1) beside the real
// summarizationMiddleware, with FakeListChatModel from @langchain/core's own testing utilities
// as both the agent's model and the summarizer: the summarization really happens.
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { MemorySaver } from "@langchain/langgraph";
import { AIMessage, createAgent, HumanMessage, summarizationMiddleware } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeServer, type FakeServer, receiptsIn } from "../fake-server";
import { sdk } from "../load";
import { langchain, until } from "./dist";

const SUMMARY = "The user is tracking invoices 5501 and 5502; 5501 is paid, 5502 is overdue by 12 days.";
let floorline: FakeServer;
beforeAll(async () => {
  floorline = await fakeServer();
});
afterAll(() => floorline.close());

const earlier = [
  new HumanMessage("Invoice 5501 for ACME, 4,200 EUR, due 2026-03-01: is it paid?"),
  new AIMessage("Invoice 5501 was paid on 2026-02-27 by bank transfer."),
  new HumanMessage("And invoice 5502 for Globex, 1,150 EUR, due 2026-03-05?"),
  new AIMessage("Invoice 5502 is overdue by 12 days; a reminder went out on 2026-03-10."),
  new HumanMessage("Who is the contact at Globex?"),
  new AIMessage("The Globex contact is Dana Whitfield, accounts payable."),
];

function agent(chainId: string, options: { summary?: string; checkpointer?: MemorySaver } = {}) {
  const fl = new sdk.Floorline({ url: floorline.url, scheduledDelayMs: 10, flushOnExit: false });
  const a = createAgent({
    model: new FakeListChatModel({ responses: ["Sending the reminder now."] }),
    tools: [],
    middleware: [
      langchain.floorlineMiddleware(fl, { chainId }),
      summarizationMiddleware({
        model: new FakeListChatModel({ responses: [options.summary ?? SUMMARY] }),
        trigger: { messages: 6 },
        keep: { messages: 2 },
      }),
    ],
    ...(options.checkpointer ? { checkpointer: options.checkpointer } : {}),
  });
  return { fl, a };
}

describe("floorlineMiddleware", () => {
  it("records a summarization: the replaced messages in, the summary out, measured", async () => {
    const { fl, a } = agent("thread-12");
    const state = await a.invoke({ messages: [...earlier, new HumanMessage("Please chase 5502.")] });
    // The agent ran as it would without the middleware: summarized, then answered.
    expect(String(state.messages[0]?.content)).toContain(SUMMARY);
    expect(String(state.messages.at(-1)?.content)).toBe("Sending the reminder now.");

    await until(() => receiptsIn(floorline.seen).some((r) => r.chain_id === "thread-12"));
    await fl.close();
    const receipts = receiptsIn(floorline.seen).filter((r) => r.chain_id === "thread-12");
    expect(receipts).toHaveLength(1);
    const [receipt] = receipts;
    expect(receipt).toMatchObject({ pass_id: "thread-12.p1", content_class: "langchain" });
    const summaryText = String(state.messages[0]?.content);
    expect(receipt?.current_size_bytes).toBe(Buffer.byteLength(summaryText));
    expect(receipt?.metadata).toMatchObject({ framework: "langchain", density_measured: true, kept_messages: 2 });
    const density = receipt?.semantic_density_score as number;
    expect(density).toBeGreaterThan(0);
    expect(density).toBeLessThan(1);
    const original = floorline.seen.find(
      (s) => s.path === "/api/v1/originals" && (s.body as { chain_id: string }).chain_id === "thread-12",
    )?.body as Record<string, unknown>;
    // What the summary replaced, as the operator can retrieve it; the two kept messages are not in it.
    expect(String(original.original)).toContain("4,200 EUR");
    expect(String(original.original)).toContain("Who is the contact at Globex?");
    expect(String(original.original)).not.toContain("Dana Whitfield");
    expect(String(original.original)).not.toContain("Please chase 5502.");
  });

  it("records nothing when no summarization happens", async () => {
    const { fl, a } = agent("thread-13");
    await a.invoke({ messages: [new HumanMessage("Is 5501 paid?")] });
    await fl.close();
    expect(receiptsIn(floorline.seen).filter((r) => r.chain_id === "thread-13")).toEqual([]);
  });

  it("a thread resumed from its checkpoint by a new middleware records only new summarizations, numbered on", async () => {
    const checkpointer = new MemorySaver();
    const thread = { configurable: { thread_id: "thread-14" } };
    // The first process: a summarization, recorded as the chain's first pass.
    const first = agent("thread-14", { checkpointer });
    await first.a.invoke({ messages: [...earlier, new HumanMessage("Please chase 5502.")] }, thread);
    await until(() => receiptsIn(floorline.seen).some((r) => r.chain_id === "thread-14"));
    await first.fl.close();

    // A new process (a new client and middleware) resumes the thread: the state it reads back
    // holds the first summary, which is not a new summarization.
    const LATER = "Invoice 5502 was chased twice; Globex promised payment by 2026-03-20.";
    const second = agent("thread-14", { checkpointer, summary: LATER });
    await second.a.invoke({ messages: [new HumanMessage("Did Globex answer?")] }, thread);
    await new Promise((r) => setTimeout(r, 100));
    expect(receiptsIn(floorline.seen).filter((r) => r.chain_id === "thread-14")).toHaveLength(1);
    // Two more turns reach the trigger again: that summarization is the chain's second pass.
    await second.a.invoke({ messages: [new HumanMessage("Chase them again.")] }, thread);
    const state = await second.a.invoke({ messages: [new HumanMessage("Anything new?")] }, thread);
    expect(String(state.messages[0]?.content)).toContain(LATER);
    await until(() => receiptsIn(floorline.seen).filter((r) => r.chain_id === "thread-14").length >= 2);
    await new Promise((r) => setTimeout(r, 100));
    await second.fl.close();
    const receipts = receiptsIn(floorline.seen).filter((r) => r.chain_id === "thread-14");
    expect(receipts.map((r) => [r.pass_id, r.pass_number])).toEqual([
      ["thread-14.p1", 1],
      ["thread-14.p2", 2],
    ]);
    expect(receipts[1]?.current_size_bytes).toBe(Buffer.byteLength(String(state.messages[0]?.content)));
  });
});
