// Which floor a chain judges by. One order in both SDKs: a policy given in code (for the chain,
// or for its class in the client's `policies`) wins; else the server's policy for the class,
// once read; else the built-in conservative default (the server's own for a class it does
// not know). A class given in code is never read from the server.
import { CONSERVATIVE_DEFAULT_POLICY } from "../../../lib/guard/policy";
import type { Transport } from "./http";
import type { Policy } from "./receipt";

/** Per class, made once: recordPass asks for its policy on every pass. */
const MAX_CLASSES = 10_000;

interface Served {
  policy: Policy | null;
  fetching: Promise<Policy> | null;
}

export class Policies {
  private readonly given = new Map<string, Policy>();
  private readonly served = new Map<string, Served>();
  private readonly defaults = new Map<string, Policy>();

  constructor(
    private readonly transport: Transport | null,
    given: Record<string, Policy> | undefined,
    private readonly waitMs: number,
  ) {
    for (const [contentClass, policy] of Object.entries(given ?? {}))
      this.given.set(contentClass, asGiven(contentClass, policy));
  }

  /** The policy as known now, without waiting. */
  now(contentClass: string): Policy {
    return this.given.get(contentClass) ?? this.served.get(contentClass)?.policy ?? this.fallback(contentClass);
  }

  /** The policy once the server has answered for the class, or at most `waitMs` from now. */
  ready(contentClass: string): Promise<Policy> {
    const given = this.given.get(contentClass);
    if (given) return Promise.resolve(given);
    const served = this.served.get(contentClass);
    if (served?.policy && !served.fetching) return Promise.resolve(served.policy);
    const fetching = served?.fetching ?? this.fetch(contentClass);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<Policy>((resolve) => {
      timer = setTimeout(() => resolve(this.now(contentClass)), this.waitMs);
      timer.unref();
    });
    return Promise.race([fetching, waited]).finally(() => clearTimeout(timer));
  }

  /** The server says which policy version judged a receipt: another one than known means read again. */
  noticeVersion(contentClass: string, version: number): void {
    if (this.given.has(contentClass)) return;
    const served = this.served.get(contentClass);
    if (served && !served.fetching && served.policy?.version !== version) void this.fetch(contentClass);
  }

  private fetch(contentClass: string): Promise<Policy> {
    const transport = this.transport;
    if (!transport) return Promise.resolve(this.now(contentClass));
    let served = this.served.get(contentClass);
    if (!served) {
      served = { policy: null, fetching: null };
      this.served.set(contentClass, served);
      if (this.served.size > MAX_CLASSES) this.served.delete(this.served.keys().next().value as string);
    }
    const entry = served;
    entry.fetching = transport
      .request("GET", `/api/v1/policies/${encodeURIComponent(contentClass)}`)
      .then((answer) => {
        if (isPolicy(answer))
          entry.policy = { ...answer, version: typeof answer.version === "number" ? answer.version : 0 };
        return this.now(contentClass);
      })
      // Offline (or refused): what was known stands, and the next ready() asks again.
      .catch(() => this.now(contentClass))
      .finally(() => {
        entry.fetching = null;
      });
    return entry.fetching;
  }

  private fallback(contentClass: string): Policy {
    let policy = this.defaults.get(contentClass);
    if (!policy) {
      policy = { ...CONSERVATIVE_DEFAULT_POLICY, content_class: contentClass, version: 0 };
      this.defaults.set(contentClass, policy);
      if (this.defaults.size > MAX_CLASSES) this.defaults.delete(this.defaults.keys().next().value as string);
    }
    return policy;
  }
}

/** A policy given in code: its class's name, and no version (none of the server's judged by it). */
export function asGiven(contentClass: string, policy: Policy): Policy {
  if (!isPolicy(policy))
    throw new TypeError(
      `policies: the policy for ${JSON.stringify(contentClass)} needs min_size_bytes, min_semantic_density and max_pass_number as numbers`,
    );
  return { ...policy, content_class: contentClass, version: null };
}

function isPolicy(value: unknown): value is Policy {
  const p = value as Partial<Policy> | null;
  return (
    typeof p?.min_size_bytes === "number" &&
    typeof p.min_semantic_density === "number" &&
    typeof p.max_pass_number === "number"
  );
}
