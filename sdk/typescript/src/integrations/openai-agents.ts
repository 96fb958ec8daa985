// @floorline/sdk/openai-agents: an OpenAIResponsesCompactionSession, observed. Each compaction
// that runs (runCompaction answering a result, not null) is a pass: the session's items before
// (readable, cached as the original) and after (the Responses API's compaction items, whose
// content is encrypted: opaque, hashed and sized, not measured).
import type { Floorline } from "../client";
import { later, openChain, recordOpaqueNow, warnOnce } from "./record";

export interface ObserveOpenAICompactionOptions {
  chainId: string;
  /** Default `openai-agents`. */
  contentClass?: string;
  resumeAfter?: number;
}

interface CompactionSessionLike {
  runCompaction: (...args: unknown[]) => Promise<unknown>;
  getItems: (limit?: number) => Promise<unknown[]>;
}

const OBSERVED = Symbol.for("floorline.openai-agents.observed");

/** Observes the session in place and answers it; its behaviour is unchanged. */
export function observeOpenAICompaction<S>(fl: Floorline, session: S, options: ObserveOpenAICompactionOptions): S {
  try {
    const s = session as unknown as CompactionSessionLike & { [OBSERVED]?: true };
    if (typeof s.runCompaction !== "function" || typeof s.getItems !== "function" || s[OBSERVED]) return session;
    const run = s.runCompaction;
    s.runCompaction = async (...args: unknown[]) => {
      const before = await readItems(s);
      const result = await run.apply(session, args);
      if (result !== null && result !== undefined) {
        const after = await readItems(s);
        later("cannot record an OpenAI compaction", () => {
          const chain = openChain(fl, options, "openai-agents");
          if (!chain) return;
          recordOpaqueNow(chain, {
            input: before === null ? null : json(before),
            output: after === null ? null : json(after),
            metadata: {
              framework: "openai-agents",
              items_before: before?.length,
              items_after: after?.length,
              ...usageOf(result),
            },
          });
        });
      }
      return result;
    };
    s[OBSERVED] = true;
  } catch (error) {
    warnOnce("cannot observe the OpenAI compaction session", error);
  }
  return session;
}

/** The session's items, or null (warned) when reading them fails: the compaction goes on regardless. */
async function readItems(s: CompactionSessionLike): Promise<unknown[] | null> {
  try {
    const items = await s.getItems();
    return Array.isArray(items) ? items : null;
  } catch (error) {
    warnOnce("cannot read the session's items", error);
    return null;
  }
}

function json(items: unknown[]): string {
  return JSON.stringify(items);
}

function usageOf(result: unknown): Record<string, unknown> {
  const usage = (result as { usage?: Record<string, unknown> }).usage;
  if (typeof usage !== "object" || usage === null) return {};
  const pick = (k: string) => (typeof usage[k] === "number" ? { [k]: usage[k] } : {});
  return { ...pick("inputTokens"), ...pick("outputTokens"), ...pick("totalTokens") };
}
