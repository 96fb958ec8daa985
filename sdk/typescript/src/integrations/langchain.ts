// @floorline/sdk/langchain: a middleware for `createAgent` (langchain v1) that records each
// summarization summarizationMiddleware makes: the messages it replaced as the pass's input,
// the summary message as its output, measured against them.
//
// It needs two looks: the messages before summarization (its beforeModel, so it goes before
// summarizationMiddleware in the list) and the request the model gets after every beforeModel
// ran (wrapModelCall), where a new summary message shows that a summarization happened.
//
// What it has recorded lives in the agent's state (its stateSchema), so a checkpointer keeps it
// with the thread: a thread resumed in a new process, whose state still holds the last summary,
// does not record that summary again, and numbers its next summarization on from the last.
import { createRequire } from "node:module";
import { createMiddleware } from "langchain";
import { sha256Hex } from "../../../../lib/guard/hash";
import type { Floorline } from "../client";
import { later, openChain, recordCompactionNow, warnOnce } from "./record";

export interface FloorlineMiddlewareOptions {
  chainId: string;
  /** Default `langchain`. */
  contentClass?: string;
  resumeAfter?: number;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null;

interface MessageLike {
  id?: string;
  content?: unknown;
  additional_kwargs?: Json;
  tool_calls?: unknown[];
  getType?: () => string;
  type?: string;
}

function kind(m: MessageLike): string {
  try {
    return typeof m.getType === "function" ? m.getType() : (m.type ?? "message");
  } catch {
    return "message";
  }
}

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b) => (typeof b === "string" ? b : isObject(b) && typeof b.text === "string" ? b.text : ""))
    .filter((t) => t !== "")
    .join("\n");
}

function line(m: MessageLike): string {
  const calls =
    Array.isArray(m.tool_calls) && m.tool_calls.length > 0
      ? m.tool_calls
          .map((c) => (isObject(c) ? `[tool ${String(c.name)}] ${JSON.stringify(c.args ?? {})}` : ""))
          .join("\n")
      : "";
  const body = [text(m.content), calls].filter((t) => t !== "").join("\n");
  return body === "" ? "" : `${kind(m)}: ${body}`;
}

const isSummary = (m: MessageLike) =>
  isObject(m.additional_kwargs) && m.additional_kwargs.lc_source === "summarization";

// The state's schema is a zod object, made with the zod langchain itself resolves (it depends on
// zod), so the SDK needs no dependency of its own for it. Where that zod cannot be loaded (a
// bundle that cannot resolve it), the middleware still records, remembering what it recorded
// in this process only.
function stateSchemaOf() {
  try {
    const fromLangchain = createRequire(createRequire(import.meta.url).resolve("langchain"));
    const { z } = fromLangchain("zod") as typeof import("zod");
    return z.object({
      /** The passes this thread's chain has: where a resumed thread's numbering goes on. */
      floorlinePasses: z.number().default(0),
      /** The SHA-256 of the last summary recorded: the one a resumed thread's state still holds. */
      floorlineSummary: z.string().default(""),
    });
  } catch (error) {
    warnOnce("cannot keep what was recorded in the agent's state (no zod beside langchain)", error);
    return undefined;
  }
}

const stateSchema = stateSchemaOf();

interface Recorded {
  floorlinePasses?: number;
  floorlineSummary?: string;
}

/** The middleware; list it before `summarizationMiddleware` in `createAgent({ middleware })`. */
export function floorlineMiddleware(fl: Floorline, options: FloorlineMiddlewareOptions) {
  let before: MessageLike[] = [];
  // Summaries recorded by this instance (an agent run without a checkpointer starts from empty
  // state on every invoke, and may be handed its summary again).
  const recorded = new Set<string>();
  let queued = 0;
  let update: Required<Recorded> | null = null;
  return createMiddleware({
    name: "FloorlineMiddleware",
    stateSchema,
    beforeModel: (state) => {
      try {
        const messages = (state as { messages?: unknown }).messages;
        before = Array.isArray(messages) ? [...(messages as MessageLike[])] : [];
      } catch (error) {
        warnOnce("cannot read the agent's messages", error);
      }
      return undefined;
    },
    wrapModelCall: (request, handler) => {
      try {
        const state = ((request as { state?: Recorded }).state ?? {}) as Recorded;
        const now = (request as { messages?: MessageLike[] }).messages ?? [];
        const isNew = (m: MessageLike) => {
          if (!isSummary(m)) return false;
          const digest = sha256Hex(text(m.content));
          return digest !== state.floorlineSummary && !recorded.has(digest);
        };
        const summary = now.find(isNew);
        const chain = summary
          ? openChain(fl, { ...options, resumeAfter: options.resumeAfter ?? state.floorlinePasses ?? 0 }, "langchain")
          : null;
        if (summary && chain) {
          const output = text(summary.content);
          const digest = sha256Hex(output);
          recorded.add(digest);
          // Kept messages come through with their ids; the summary takes the first replaced one's.
          const kept = new Set(now.filter((m) => m !== summary && m.id !== undefined).map((m) => m.id));
          const replaced = before.filter((m) => !isSummary(m) && !(m.id !== undefined && kept.has(m.id)));
          const input =
            replaced.length > 0
              ? replaced
                  .map(line)
                  .filter((t) => t !== "")
                  .join("\n\n")
              : null;
          const metadata = { framework: "langchain", replaced_messages: replaced.length, kept_messages: kept.size };
          queued++;
          update = { floorlinePasses: chain.passes + queued, floorlineSummary: digest };
          later("cannot record a LangChain summarization", () => {
            queued--;
            recordCompactionNow(chain, { input, output, metadata });
          });
        }
      } catch (error) {
        warnOnce("cannot observe a LangChain summarization", error);
      }
      return handler(request);
    },
    // What was recorded goes into the state after the model's turn, for the checkpointer to keep.
    afterModel: () => {
      const done = update;
      update = null;
      return done ?? undefined;
    },
  });
}
