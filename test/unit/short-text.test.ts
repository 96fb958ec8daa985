// The evaluate byte path takes a pass id or content hash as plain only when isShortText says
// so; it must never take a string the schema would refuse, or the fast answer would differ
// from the general path's 422.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CONTENT_HASH_LENGTH, compressionPassShape, isShortText, PASS_ID_LENGTH } from "@/lib/schemas/guard";

const anyText = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.string({ unit: "binary", maxLength: 300 }),
  fc.string({ unit: "grapheme", maxLength: 300 }),
  fc.constantFrom("", "a\u0000b", "\ud800", "x".repeat(256), "x".repeat(257), "😀".repeat(200), "x".repeat(4097)),
);

describe("isShortText", () => {
  for (const [field, length] of [
    ["pass_id", PASS_ID_LENGTH],
    ["current_content_hash", CONTENT_HASH_LENGTH],
  ] as const) {
    it(`never takes a ${field} the schema refuses`, () => {
      fc.assert(
        fc.property(anyText, (value) => {
          if (isShortText(value, length.min, length.max)) {
            expect(compressionPassShape[field].safeParse(value).success).toBe(true);
          }
        }),
        { numRuns: 5_000 },
      );
    });
  }

  it("takes plain ASCII within the bounds and refuses what the schema refuses", () => {
    expect(isShortText("p1", 1, 256)).toBe(true);
    expect(isShortText("x".repeat(256), 1, 256)).toBe(true);
    expect(isShortText("", 1, 256)).toBe(false);
    expect(isShortText("x".repeat(257), 1, 256)).toBe(false);
    expect(isShortText("a\u0000b", 1, 256)).toBe(false);
    expect(isShortText("\ud800", 1, 256)).toBe(false);
  });
});
