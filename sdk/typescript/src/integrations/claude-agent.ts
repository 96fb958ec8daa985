// @floorline/sdk/claude-agent: a Claude Agent SDK query, observed. Each `compact_boundary`
// system message is a compaction of the session: a pass of chain `claude-code:<session_id>`,
// its input the conversation the stream showed since the last compaction, its output the
// summary when the stream carries it (the user message that follows the boundary).
import type { Floorline } from "../client";
import { contentText, messageLine } from "./messages";
import { later, openChain, recordCompactionNow, recordOpaqueNow, warnOnce } from "./record";

export interface ObserveClaudeAgentOptions {
  /** Default `claude-code`. */
  contentClass?: string;
  /** The passes the session's chain already has (a session resumed in a new process). */
  resumeAfter?: number;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Claude Code's own opening of a compact summary, for streams that do not flag the message. */
const SUMMARY_OPENING = "This session is being continued from a previous conversation";

interface Boundary {
  sessionId: string;
  input: string | null;
  metadata: Json;
}

class Observer {
  private lines: string[] = [];
  private boundary: Boundary | null = null;

  constructor(
    private readonly fl: Floorline,
    private readonly options: ObserveClaudeAgentOptions,
  ) {}

  see(message: unknown): void {
    try {
      this.seeOrThrow(message);
    } catch (error) {
      warnOnce("cannot read a Claude Agent SDK message", error);
    }
  }

  /** The stream ended: a boundary still waiting for its summary is recorded without it. */
  end(): void {
    if (this.boundary) this.settle(null);
  }

  private seeOrThrow(message: unknown): void {
    if (!isObject(message)) return;
    if (message.type === "system" && message.subtype === "compact_boundary") {
      if (this.boundary) this.settle(null);
      const meta = isObject(message.compact_metadata) ? message.compact_metadata : {};
      this.boundary = {
        sessionId: typeof message.session_id === "string" ? message.session_id : "unknown",
        input: this.lines.length > 0 ? this.lines.join("\n\n") : null,
        metadata: {
          framework: "claude-agent-sdk",
          trigger: meta.trigger,
          pre_tokens: meta.pre_tokens,
          ...(typeof meta.post_tokens === "number" ? { post_tokens: meta.post_tokens } : {}),
          ...(typeof message.uuid === "string" ? { boundary_uuid: message.uuid } : {}),
        },
      };
      this.lines = [];
      return;
    }
    if (message.type !== "user" && message.type !== "assistant") return;
    const inner = isObject(message.message) ? message.message : null;
    if (this.boundary && message.type === "user" && inner) {
      const text = contentText(inner.content);
      if (message.isSynthetic === true || text.startsWith(SUMMARY_OPENING)) {
        this.settle(text);
        this.lines.push(messageLine(inner));
        return;
      }
    }
    if (this.boundary && message.type === "assistant") this.settle(null);
    const line = messageLine(inner);
    if (line !== "") this.lines.push(line);
  }

  private settle(summary: string | null): void {
    const b = this.boundary;
    this.boundary = null;
    if (!b) return;
    later("cannot record a Claude Agent SDK compaction", () => {
      const chain = openChain(
        this.fl,
        {
          chainId: `claude-code:${b.sessionId}`,
          contentClass: this.options.contentClass,
          resumeAfter: this.options.resumeAfter,
        },
        "claude-code",
      );
      if (!chain) return;
      if (summary !== null) {
        recordCompactionNow(chain, { input: b.input, output: summary, metadata: b.metadata });
        return;
      }
      // No summary in the stream: the size after is the CLI's token count, in bytes at about
      // four a token, marked as estimated.
      const post = b.metadata.post_tokens;
      recordOpaqueNow(chain, {
        input: b.input,
        output: null,
        ...(typeof post === "number" ? { estimatedSizeBytes: post * 4 } : {}),
        metadata: { ...b.metadata, summary: "not in the stream" },
      });
    });
  }
}

/**
 * Passes every message of `stream` (a `query(...)`) through unchanged and records each
 * compaction it shows. A Query (an async generator with methods of its own) is observed in
 * place and answered as it is, so `interrupt()` and the rest still work; any other async
 * iterable is answered wrapped.
 */
export function observeClaudeAgent<S extends AsyncIterable<unknown>>(
  fl: Floorline,
  stream: S,
  options: ObserveClaudeAgentOptions = {},
): S {
  const observer = new Observer(fl, options);
  try {
    const generator = stream as unknown as { next?: unknown; return?: unknown; throw?: unknown };
    if (typeof generator.next === "function") {
      const next = generator.next as (...a: unknown[]) => Promise<IteratorResult<unknown>>;
      const finish = (name: "return" | "throw") => {
        const own = generator[name];
        if (typeof own !== "function") return;
        generator[name] = (...a: unknown[]) => {
          observer.end();
          return (own as (...x: unknown[]) => unknown).apply(stream, a);
        };
      };
      generator.next = async (...a: unknown[]) => {
        const result = await next.apply(stream, a);
        if (result.done) observer.end();
        else observer.see(result.value);
        return result;
      };
      finish("return");
      finish("throw");
      return stream;
    }
  } catch (error) {
    warnOnce("cannot observe the Claude Agent SDK stream", error);
    return stream;
  }
  return (async function* observed() {
    try {
      for await (const message of stream) {
        observer.see(message);
        yield message;
      }
    } finally {
      observer.end();
    }
  })() as unknown as S;
}
