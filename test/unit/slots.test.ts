// The counter behind the event-stream and OTLP limits: a global limit and one per caller,
// each place given back once.
import { describe, expect, it } from "vitest";
import { callerOf, type Slot, SlotCounter } from "@/lib/http/slots";
import { exportLimits } from "@/lib/otlp/admission";

const taken = (slot: Slot | string): Slot => {
  if (typeof slot === "string") throw new Error(`refused: ${slot}`);
  return slot;
};

describe("SlotCounter", () => {
  it("refuses past the global limit and past one caller's share, and counts each release once", () => {
    const slots = new SlotCounter();
    const limits = { global: 3, perCaller: 2 };
    const a1 = taken(slots.take("key:a", limits));
    taken(slots.take("key:a", limits));
    expect(slots.take("key:a", limits)).toBe("caller");
    const b1 = taken(slots.take("key:b", limits));
    expect(slots.take("key:c", limits)).toBe("global");
    expect(slots.take(null, limits)).toBe("global");
    a1.release();
    a1.release();
    expect(slots.inUse()).toBe(2);
    expect(slots.inUse("key:a")).toBe(1);
    taken(slots.take("key:c", limits));
    expect(slots.take("key:a", limits)).toBe("global");
    b1.release();
    taken(slots.take("key:a", limits));
    expect(slots.inUse("key:a")).toBe(2);
  });

  it("lets the unnamed caller (access control off) take every place, and tells callers apart", () => {
    const slots = new SlotCounter();
    for (let i = 0; i < 5; i++) taken(slots.take(null, { global: 5, perCaller: 1 }));
    expect(slots.take(null, { global: 5, perCaller: 1 })).toBe("global");
    expect(callerOf({ kind: "anonymous" })).toBeNull();
    expect(callerOf({ kind: "key", id: "k1", name: "agent", scopes: ["read"] })).toBe("key:k1");
    expect(callerOf({ kind: "operator", id: 1, name: "alice", role: "admin", sessionId: "s9", scopes: ["read"] })).toBe(
      "session:s9",
    );
  });

  it("reads the OTLP limits from the environment, with their defaults", () => {
    expect(exportLimits({})).toEqual({ global: 4, perCaller: 2 });
    expect(exportLimits({ FLOORLINE_MAX_OTLP_EXPORTS: "8", FLOORLINE_MAX_OTLP_EXPORTS_PER_CALLER: "nope" })).toEqual({
      global: 8,
      perCaller: 2,
    });
  });
});
