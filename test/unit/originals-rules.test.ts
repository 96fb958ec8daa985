import { describe, expect, it } from "vitest";
import {
  DEFAULT_MAX_BYTES,
  MAX_TTL_SECONDS,
  originalsConfigFromEnv,
  checkClientHash,
  displayStatus,
  effectiveTtlSeconds,
  expiryFor,
  formatMarker,
  goneMessage,
  guessContentType,
  hourOf,
  markerKey,
  parseHashKey,
} from "@/lib/originals/rules";
import { sha256Hex } from "@/lib/guard/hash";

const digest = sha256Hex("the original");

describe("parseHashKey", () => {
  it("accepts full digests and prefixes of 12 to 63 hex characters", () => {
    expect(parseHashKey(digest)).toEqual({ ok: true, key: digest, full: true });
    expect(parseHashKey(digest.slice(0, 12))).toEqual({ ok: true, key: digest.slice(0, 12), full: false });
    expect(parseHashKey(digest.slice(0, 24))).toEqual({ ok: true, key: digest.slice(0, 24), full: false });
  });

  it("takes the key as agents copy it from a marker: `hash=`, upper case, surrounding spaces", () => {
    expect(parseHashKey(` hash=${digest.slice(0, 24).toUpperCase()} `)).toEqual({
      ok: true,
      key: digest.slice(0, 24),
      full: false,
    });
  });

  it("refuses short, long and non-hex keys", () => {
    expect(parseHashKey(digest.slice(0, 11)).ok).toBe(false);
    expect(parseHashKey(digest + "0").ok).toBe(false);
    expect(parseHashKey("abc123").ok).toBe(false);
    expect(parseHashKey("g".repeat(64)).ok).toBe(false);
    expect(parseHashKey("").ok).toBe(false);
  });
});

describe("checkClientHash", () => {
  it("accepts the digest and its prefixes of at least 12, and names the right digest otherwise", () => {
    expect(checkClientHash(digest, digest)).toBeNull();
    expect(checkClientHash(digest.slice(0, 12), digest)).toBeNull();
    expect(checkClientHash(sha256Hex("other"), digest)).toContain(digest);
    expect(checkClientHash(digest.slice(0, 8), digest)).toMatch(/12 to 64/);
    expect(checkClientHash(digest.slice(1, 20), digest)).not.toBeNull();
  });
});

describe("markers", () => {
  it("use the reference's wording with item counts, and a 24-character key by default", () => {
    expect(formatMarker(markerKey(digest), 1000, 20)).toBe(
      `[1000 items compressed to 20. Retrieve more: hash=${digest.slice(0, 24)}]`,
    );
    expect(formatMarker("abc", 0, 0)).toBe("[0 items compressed to 0. Retrieve more: hash=abc]");
  });

  it("keep the client's own key, and still carry a key without counts", () => {
    expect(markerKey(digest, digest.slice(0, 12).toUpperCase())).toBe(digest.slice(0, 12));
    expect(formatMarker("k", 10, null)).toBe("[Content compressed. Retrieve more: hash=k]");
  });
});

describe("configuration", () => {
  it("defaults to a 1 GiB budget and no TTL; 0 means the default", () => {
    expect(originalsConfigFromEnv({})).toEqual({
      config: { maxBytes: DEFAULT_MAX_BYTES, defaultTtlSeconds: null },
      problems: [],
    });
    expect(DEFAULT_MAX_BYTES).toBe(1024 ** 3);
    expect(originalsConfigFromEnv({ CCR_MAX_BYTES: "0", CCR_TTL_SECONDS: "0" }).config).toEqual({
      maxBytes: DEFAULT_MAX_BYTES,
      defaultTtlSeconds: null,
    });
    expect(originalsConfigFromEnv({ CCR_MAX_BYTES: "5000", CCR_TTL_SECONDS: "3600" }).config).toEqual({
      maxBytes: 5000,
      defaultTtlSeconds: 3600,
    });
  });

  it("reports a malformed value and keeps the default rather than failing requests", () => {
    const { config, problems } = originalsConfigFromEnv({ CCR_MAX_BYTES: "1e3x", CCR_TTL_SECONDS: "-5" });
    expect(config).toEqual({ maxBytes: DEFAULT_MAX_BYTES, defaultTtlSeconds: null });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/CCR_MAX_BYTES/);
  });

  it("reports a TTL past its bound (about a century) and keeps the default", () => {
    const { config, problems } = originalsConfigFromEnv({ CCR_TTL_SECONDS: String(MAX_TTL_SECONDS + 1) });
    expect(config.defaultTtlSeconds).toBeNull();
    expect(problems).toEqual([expect.stringMatching(/^CCR_TTL_SECONDS must be a whole number from 0 to \d+/)]);
    expect(originalsConfigFromEnv({ CCR_TTL_SECONDS: String(MAX_TTL_SECONDS) }).config.defaultTtlSeconds).toBe(
      MAX_TTL_SECONDS,
    );
  });
});

describe("TTL", () => {
  it("prefers a positive entry TTL, else the default", () => {
    expect(effectiveTtlSeconds(30, 600)).toBe(30);
    expect(effectiveTtlSeconds(0, 600)).toBe(600);
    expect(effectiveTtlSeconds(null, 600)).toBe(600);
    expect(effectiveTtlSeconds(undefined, null)).toBeNull();
  });

  it("expires at store time plus TTL, and reads as expired from that instant", () => {
    const stored = new Date("2026-01-01T00:00:00.000Z");
    const expires = expiryFor(stored, 90)!;
    expect(expires.toISOString()).toBe("2026-01-01T00:01:30.000Z");
    expect(expiryFor(stored, null)).toBeNull();
    expect(displayStatus("live", expires, new Date(expires.getTime() - 1))).toBe("live");
    expect(displayStatus("live", expires, expires)).toBe("expired");
    expect(displayStatus("evicted", null, expires)).toBe("evicted");
  });
});

describe("small rules", () => {
  it("buckets counters by UTC hour", () => {
    expect(hourOf(new Date("2026-05-05T13:59:59.999Z")).toISOString()).toBe("2026-05-05T13:00:00.000Z");
  });

  it("guesses JSON only when it parses", () => {
    expect(guessContentType('{"a": 1}')).toBe("application/json");
    expect(guessContentType("[1, 2")).toBe("text/plain");
    expect(guessContentType("plain words")).toBe("text/plain");
  });

  it("says in a 410 when, why, and that retrying will not help", () => {
    const message = goneMessage(
      "abc",
      "evicted",
      new Date("2026-01-01T00:00:00.000Z"),
      "Evicted to keep the store within its byte budget.",
    );
    expect(message).toContain("evicted at 2026-01-01T00:00:00.000Z");
    expect(message).toContain("byte budget");
    expect(message).toContain("Retrying this hash will not help");
  });
});
