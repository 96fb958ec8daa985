// @floorline/sdk/langchain: a middleware for `createAgent` (langchain v1) that records each
// summarization summarizationMiddleware makes: the messages it replaced as the pass's input,
// the summary message as its output, measured against them.
//
// It needs two looks: the messages before summarization (its beforeModel, so it goes before
// summarizationMiddleware in the list) and the request the model gets after every beforeModel
// ran (wrapModelCall), where a new summary message shows that a summarization happened.
import { createMiddleware } from "langchain";
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

/** The middleware; list it before `summarizationMiddleware` in `createAgent({ middleware })`. */
export function floorlineMiddleware(fl: Floorline, options: FloorlineMiddlewareOptions) {
  let before: MessageLike[] = [];
  const summaries = new Set<string>();
  return createMiddleware({
    name: "FloorlineMiddleware",
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
        const now = (request as { messages?: MessageLike[] }).messages ?? [];
        const summary = now.find((m) => isSummary(m) && !summaries.has(text(m.content)));
        if (summary) {
          const output = text(summary.content);
          summaries.add(output);
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
          later("cannot record a LangChain summarization", () => {
            const chain = openChain(fl, options, "langchain");
            if (chain) recordCompactionNow(chain, { input, output, metadata });
          });
        }
      } catch (error) {
        warnOnce("cannot observe a LangChain summarization", error);
      }
      return handler(request);
    },
  });
}
