import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  FIRST_RETRY_MS,
  MAX_RETRY_DELAY_MS,
  nextAttemptAt,
  RETRY_WINDOW_MS,
  retryDelayMs,
} from "@/lib/webhooks/backoff";
import { pageUrl, renderBody, type WebhookEvent } from "@/lib/webhooks/payload";
import { deliveryHeaders, generateWebhookSecret, signPayload, verifySignature } from "@/lib/webhooks/signature";
import {
  checkWebhookUrl,
  isPrivateAddress,
  pinnedLookup,
  type ResolvedAddress,
  resolveWebhookTarget,
} from "@/lib/webhooks/target";

const collapsed: WebhookEvent = {
  id: "evt_1",
  type: "chain.collapsed",
  created_at: "2026-11-30T12:00:00.000Z",
  url: "http://127.0.0.1:3000/chains/run%2042",
  data: {
    chain_id: "run 42",
    content_class: "summary",
    pass_id: "p4",
    pass_number: 4,
    verdict: "COLLAPSE_IMMINENT",
    directive: "HALT <now> & restore",
    reasons: ["continued_after_halt", "floor_passed_without_boundary"],
  },
};

const guarded: WebhookEvent = {
  id: "evt_2",
  type: "chain.guarded",
  created_at: "2026-11-30T12:00:00.000Z",
  url: "http://127.0.0.1:3000/chains/run%2043",
  data: {
    chain_id: "run 43",
    content_class: "summary",
    pass_id: "p5",
    pass_number: 5,
    verdict: "FLOOR_BREACH_DETECTED",
    directive: "HALT: unparseable",
    strategy: "accept_loss",
  },
};

describe("webhook signatures", () => {
  it("is the hex HMAC-SHA256 of '<timestamp>.<body>' with the secret", () => {
    const expected = createHmac("sha256", "s3cret").update('1700000000.{"a":1}').digest("hex");
    expect(signPayload("s3cret", 1700000000, '{"a":1}')).toBe(`sha256=${expected}`);
  });

  it("verifies its own signature and refuses a changed body, timestamp, secret or an old delivery", () => {
    const body = renderBody(collapsed, "json");
    const headers = deliveryHeaders("k", collapsed, body, 1700000000);
    const h = { timestamp: headers["x-floorline-timestamp"], signature: headers["x-floorline-signature"] };
    expect(verifySignature("k", h, body, { now: 1700000010 })).toBe(true);
    expect(verifySignature("k", h, `${body} `, { now: 1700000010 })).toBe(false);
    expect(verifySignature("other", h, body, { now: 1700000010 })).toBe(false);
    expect(verifySignature("k", { ...h, timestamp: "1700000001" }, body, { now: 1700000010 })).toBe(false);
    expect(verifySignature("k", h, body, { now: 1700000000 + 3600 })).toBe(false);
    expect(verifySignature("k", { timestamp: null, signature: h.signature }, body)).toBe(false);
  });

  it("names the event and keeps the delivery id stable (the event id)", () => {
    const headers = deliveryHeaders("k", collapsed, "{}", 1);
    expect(headers["x-floorline-event"]).toBe("chain.collapsed");
    expect(headers["x-floorline-delivery"]).toBe("evt_1");
  });

  it("makes long, distinct secrets", () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(generateWebhookSecret()).not.toBe(a);
  });
});

describe("webhook payloads", () => {
  it("renders the contract's JSON body", () => {
    const body = JSON.parse(renderBody(collapsed, "json"));
    expect(Object.keys(body)).toEqual(["id", "type", "created_at", "data", "url"]);
    expect(body.data.chain_id).toBe("run 42");
    expect(body.url).toBe("http://127.0.0.1:3000/chains/run%2042");
  });

  it("renders Slack's {text} with a link and client text escaped", () => {
    const body = JSON.parse(renderBody(collapsed, "slack"));
    expect(Object.keys(body)).toEqual(["text"]);
    expect(body.text).toContain("<http://127.0.0.1:3000/chains/run%2042|run 42>");
    expect(body.text).toContain("HALT &lt;now&gt; &amp; restore");
    expect(body.text).not.toContain("<now>");
    // Why it counts as collapsed, in words.
    expect(body.text).toContain("continued after halt, floor passed without boundary");
  });

  it("says in Slack what a guarded chain's agent did at the floor", () => {
    const { text } = JSON.parse(renderBody(guarded, "slack"));
    expect(text).toContain("<http://127.0.0.1:3000/chains/run%2043|run 43> was guarded at pass 5");
    expect(text).toContain("the agent chose accept loss");
    expect(text).not.toContain("collapsed");
  });

  it("links each event to its page", () => {
    expect(pageUrl("http://h:1/", collapsed)).toBe("http://h:1/chains/run%2042");
    expect(pageUrl("http://h:1/", guarded)).toBe("http://h:1/chains/run%2043");
    expect(
      pageUrl("http://h:1", {
        type: "trace.rejected",
        data: { trace_id: "t", chain_id: null, node_id: "n", message: "m" },
      }),
    ).toBe("http://h:1/traces");
  });
});

describe("webhook retry schedule", () => {
  const mid = () => 0.5;
  it("backs off exponentially from the first retry to the cap, with jitter", () => {
    expect(retryDelayMs(1, mid)).toBe(FIRST_RETRY_MS);
    expect(retryDelayMs(2, mid)).toBe(2 * FIRST_RETRY_MS);
    expect(retryDelayMs(40, mid)).toBe(MAX_RETRY_DELAY_MS);
    expect(retryDelayMs(1, () => 0)).toBe(FIRST_RETRY_MS * 0.8);
    expect(retryDelayMs(1, () => 0.9999)).toBeLessThanOrEqual(FIRST_RETRY_MS * 1.2);
  });

  it("keeps retrying for at least 24 hours, ending with an attempt at the window's end", () => {
    for (const random of [() => 0, mid, () => 0.9999]) {
      const created = new Date("2026-01-01T00:00:00Z");
      let now = created;
      let attempt = 1;
      let last = created;
      for (;;) {
        const next = nextAttemptAt(attempt, created, now, random);
        if (next === null) break;
        expect(next.getTime()).toBeGreaterThan(now.getTime());
        last = next;
        now = next;
        attempt++;
        expect(attempt).toBeLessThan(200);
      }
      expect(last.getTime() - created.getTime()).toBe(RETRY_WINDOW_MS);
      expect(RETRY_WINDOW_MS).toBeGreaterThanOrEqual(24 * 3600 * 1000);
    }
  });
});

describe("webhook targets", () => {
  it.each([
    "127.0.0.1",
    "127.255.0.9",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "fe80::1",
    "fe80::1%eth0",
    "fc00::1",
    "fd12:3456::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:169.254.169.254",
    "64:ff9b::a9fe:a9fe",
    "2002:7f00:1::",
    "ff02::1",
    "not an address",
    // IPv4-translated (SIIT): ::ffff:0:a.b.c.d
    "::ffff:0:127.0.0.1",
    "::ffff:0:a00:1",
    "0:0:0:0:ffff:0:c0a8:101",
    // Local-use NAT64 (any prefix length inside 64:ff9b:1::/48), and the rest of 64:ff9b::/32
    "64:ff9b:1::a00:1",
    "64:ff9b:1:7f00:1::",
    "64:ff9b:1:ffff:ffff:ffff:ffff:ffff",
    "64:ff9b:2::808:808",
    // Teredo: its IPv4 ends cannot be trusted from the address
    "2001::1",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    "2001:0:808:808::f5ff:fffe",
    // ISATAP interface ids carrying a private IPv4
    "2001:4860:1::5efe:a00:1",
    "2606:4700::200:5efe:7f00:1",
    "2606:4700::5efe:192.168.0.1",
  ])("refuses %s", (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "172.32.0.1",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
    "::ffff:0:808:808",
    "64:ff9b::808:808",
    "2001:4860:4860::8888",
    "2002:808:808::1",
    "2606:4700::5efe:808:808",
  ])("allows %s", (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it.each([
    ["ftp://example.com/x", "http or https"],
    ["file:///etc/passwd", "http or https"],
    ["javascript:alert(1)", "http or https"],
    ["http://user:pw@example.com/", "user name"],
    ["not a url", "absolute"],
    [`https://example.com/${"a".repeat(2100)}`, "at most"],
  ])("refuses the URL %s", (url, reason) => {
    const result = checkWebhookUrl(url);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });

  const resolver =
    (table: Record<string, string[]>) =>
    async (host: string): Promise<ResolvedAddress[]> =>
      (table[host] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));

  it("checks every address a name resolves to", async () => {
    const resolve = resolver({ "mixed.test": ["93.184.216.34", "10.0.0.5"], "public.test": ["93.184.216.34"] });
    const mixed = await resolveWebhookTarget("https://mixed.test/hook", { resolve, allowPrivate: false });
    expect(mixed.ok).toBe(false);
    // Which internal address a name resolves to is not the business of whoever saved the URL.
    if (!mixed.ok) {
      expect(mixed.reason).toContain("private");
      expect(mixed.reason).toContain("FLOORLINE_WEBHOOK_ALLOW_PRIVATE=1");
      expect(mixed.reason).not.toContain("10.0.0.5");
      expect(mixed.reason).not.toMatch(/\b10\b/);
    }
    const ok = await resolveWebhookTarget("https://public.test/hook", { resolve, allowPrivate: false });
    expect(ok).toMatchObject({ ok: true, address: { address: "93.184.216.34", family: 4 } });
  });

  it("refuses literal private addresses, bracketed IPv6 too, and names that do not resolve", async () => {
    const resolve = resolver({});
    for (const url of [
      "http://127.0.0.1:9/x",
      "http://[::1]/x",
      "http://[::ffff:127.0.0.1]/",
      "http://localhost.invalid/",
    ]) {
      expect((await resolveWebhookTarget(url, { resolve, allowPrivate: false })).ok, url).toBe(false);
    }
  });

  it("names no address when an internal name resolves to one, whatever its form", async () => {
    const resolve = resolver({
      "db.internal.test": ["10.20.30.40"],
      "v6.internal.test": ["fd00:1234::42"],
      "nat64.internal.test": ["64:ff9b:1::a14:1e28"],
      "mapped.internal.test": ["::ffff:0:a14:1e28"],
    });
    for (const host of ["db.internal.test", "v6.internal.test", "nat64.internal.test", "mapped.internal.test"]) {
      const result = await resolveWebhookTarget(`https://${host}/hook`, { resolve, allowPrivate: false });
      expect(result.ok, host).toBe(false);
      if (!result.ok) {
        expect(result.reason, host).not.toMatch(/10\.20|a14|1e28|fd00|64:ff9b|::/);
      }
    }
  });

  it("accepts private targets with the opt-in, in every form", async () => {
    const resolve = resolver({ localhost: ["127.0.0.1"], teredo: ["2001::1"], nat: ["64:ff9b:1::a00:1"] });
    const result = await resolveWebhookTarget("http://localhost:8080/x", { resolve, allowPrivate: true });
    expect(result).toMatchObject({ ok: true, address: { address: "127.0.0.1" } });
    for (const url of ["http://teredo/", "http://nat/", "http://[::ffff:0:127.0.0.1]/"]) {
      expect((await resolveWebhookTarget(url, { resolve, allowPrivate: true })).ok, url).toBe(true);
    }
  });

  it("pins the checked address whatever the name resolves to later", async () => {
    const lookup = pinnedLookup({ address: "93.184.216.34", family: 4 });
    const one = await new Promise((resolve) =>
      lookup("rebind.test", {}, (_e, address, family) => resolve([address, family])),
    );
    expect(one).toEqual(["93.184.216.34", 4]);
    const all = await new Promise((resolve) => lookup("rebind.test", { all: true }, (_e, address) => resolve(address)));
    expect(all).toEqual([{ address: "93.184.216.34", family: 4 }]);
  });
});
