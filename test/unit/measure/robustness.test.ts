// The rules of floorline-facts/2 that make the method hold on chains it was not fitted to
// (docs/measurement.md, "Why it holds on chains it has not seen"): each test names one rule
// and fails when that rule breaks.
import { describe, expect, it } from "vitest";
import { measure } from "@/lib/measure/index";
import { tokenizeLine } from "@/lib/measure/scan";

const kept = (content: string, source: string, format: "text" | "json" | "any" | "base64" = "text") =>
  measure(content, { source, format });

describe("numbers in any notation", () => {
  it("reads k, M, bn, magnitude words and scientific notation as the number written out", () => {
    const source =
      "Revenue 4,200,000 USD; 1,200,000 API calls; 12,400 orders; ARR 3,900,000 EUR; 3,000,000,000 rows; 0.0025 error rate.";
    const m = kept(
      "Revenue $4.2M; 1.2e6 API calls; 12.4k orders; ARR 3.9 million EUR; 3bn rows; 2.5E-3 error rate.",
      source,
    );
    expect(m.lost_examples).toEqual([]);
    expect(m.facts?.lost).toBe(0);
  });

  it("keeps units that look like magnitudes apart: 10kb is kilobytes, 5m is not five million", () => {
    expect(tokenizeLine("10kb 5m 4B $1.2B 10K").map((t) => t.need[0])).toEqual([
      "n:10|kb",
      "n:5|m",
      "n:4|b",
      "n:1200000000|usd",
      "n:10000",
    ]);
  });

  it("reads a currency written before its number as its unit", () => {
    const source = "Revenue 4,200,000 USD, costs 1,500,000 EUR, fee 5 GBP.";
    expect(kept("Revenue USD 4.2M, costs EUR 1.5 million, fee £ 5.", source).facts?.lost).toBe(0);
  });

  it("reads a percent sign written apart as the unit", () => {
    expect(kept("Churn 1.7 %.", "Churn fell to 1.7%.").facts?.lost).toBe(0);
  });

  it("splits CSV fields at commas that are not thousands separators", () => {
    expect(tokenizeLine("north,2026-04,1204,88412.50,31 and 10,000,000").map((t) => t.text)).toEqual([
      "north",
      "2026-04",
      "1204",
      "88412.50",
      "31",
      "and",
      "10,000,000",
    ]);
  });
});

describe("dates", () => {
  it("reads a month of a year in both notations, and a full date states its month and its day", () => {
    expect(kept("Sales for 2026-04.", "Sales for April 2026.").facts?.lost).toBe(0);
    expect(kept("Due 2026-04-15 and 2026-02-24.", "Due in April 2026, review on Feb 24.").facts?.lost).toBe(0);
    expect(kept("Due in April 2026.", "Due 2026-04-15.").facts?.lost).toBe(1);
  });
});

describe("words", () => {
  it("lets a hyphenated word be stated by its parts", () => {
    const source = "Adds Parquet-Export and fixes the CSV-Export time zones.";
    expect(kept("Export to Parquet; CSV export time zones fixed.", source).facts?.lost).toBe(0);
    expect(kept("Export to Parquet.", source).lost_examples).toEqual(["CSV-Export"]);
  });

  it("reads German nouns as keywords, since German capitalises every noun", () => {
    const german =
      "Die Version 5.1 behebt ein Speicherleck im Scheduler und bringt Unterstützung für den Export nach Parquet, der bis 8 GB erlaubt.";
    // Only the numbers are facts: the nouns are context, as English keywords are.
    expect(measure("x", { source: german }).lost_examples).toEqual(["5.1 behebt", "8 GB erlaubt"]);
  });

  it("keeps names as facts in English, even in a list of them", () => {
    const english =
      "Attendees: Dana Kim, Luis Ortega, Mei Chen, Sam Patel and Priya Raman met with the Acme team in Rotterdam.";
    expect(measure("x", { source: english }).lost_examples).toEqual(
      expect.arrayContaining(["Dana", "Ortega", "Priya", "Rotterdam"]),
    );
  });

  it("splits CJK text from the numbers and names in it, and ends its sentences at 。", () => {
    expect(tokenizeLine("最大8 GB（#5120）。/v1/exportは廃止").map((t) => t.text)).toEqual([
      "最大",
      "8 GB",
      "#5120",
      "/v1/export",
      "は廃止",
    ]);
    const source = "2026年3月12日、バージョン5.1をリリースしました。PostgreSQL 16に対応しました。";
    expect(kept("5.1（2026年3月12日）：PostgreSQL 16。", source).facts?.lost).toBe(0);
    const first = "2026年3月12日、バージョン5.1をリリースしました。";
    expect(kept(`${first} ${first}`, source).semantic_density_score).toBeLessThanOrEqual(0.5);
  });
});

describe("padding", () => {
  it("catches a sentence repeated on one line even without a full stop", () => {
    for (const source of [
      "order A-1189 shipped to Lyon via DHL, tracking JD014600003NL, weight 4.2 kg, delivered 2026-05-03",
      "Der Server startet um 09:00 Uhr und verarbeitet 1200 Anfragen pro Minute",
    ]) {
      expect(kept(source, source).semantic_density_score).toBe(1);
      expect(kept(`${source} ${source}`, source).semantic_density_score).toBeLessThanOrEqual(0.5);
    }
  });
});

describe("base64", () => {
  const json = JSON.stringify({ order_id: "B-2207", lines: [{ sku: "KB-01", qty: 3 }], total: 837.2 });
  const b64 = (s: string) => Buffer.from(s).toString("base64");

  it("decodes a base64 source, and base64 of base64 as well", () => {
    expect(kept(b64(json), b64(json), "base64").semantic_density_score).toBe(1);
    expect(kept(json, b64(json), "any").facts?.lost).toBe(0);
    expect(kept(b64(b64(json)), b64(json), "base64").semantic_density_score).toBe(1);
  });

  it("reads what merely looks like base64 as text in format any: a digest, a word, a key", () => {
    for (const word of ["0123456789ABCDEF0123456789ABCDEF", "Internationalization", "AKIAIOSFODNN7EXAMPLE"]) {
      expect(measure(word, { format: "any" }), word).toMatchObject({ format: "text", parseable: true });
    }
  });

  it("still refuses base64 of bytes that are not text, long or short", () => {
    const bytes = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => 0x80 + ((i * 37) % 128)));
    // 64 characters or more, padding, + or /, or capitals, small letters and digits mixed.
    for (const encoded of [
      bytes(48).toString("base64"),
      bytes(32).toString("base64"),
      "gKWqz/T5Hl6DpNo=",
      "gKWqzT5Hl6DpNoQx",
    ]) {
      expect(measure(encoded, { format: "any" }), encoded).toMatchObject({ format: "base64", parseable: false });
    }
  });
});

describe("required fields", () => {
  it("reads a leading [] as a document that is an array", () => {
    const events = JSON.stringify([{ id: 1 }, { id: 2 }]);
    expect(measure(events, { format: "json", requiredFields: ["[].id"] }).schema_valid).toBe(true);
    expect(measure(JSON.stringify([{ id: 1 }, {}]), { format: "json", requiredFields: ["[].id"] }).schema_valid).toBe(
      false,
    );
  });
});

describe("JSON nested deep", () => {
  const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
  const arrays = (depth: number) => `${"[".repeat(depth)}1${"]".repeat(depth)}`;

  it("is read as JSON up to 64 levels, as the rest of Floorline reads it, and not beyond", () => {
    for (const nest of [objects, arrays]) {
      expect(measure(nest(64), { format: "json" }).parseable).toBe(true);
      expect(measure(nest(65), { format: "json" }).parseable).toBe(false);
      expect(measure(nest(65), { source: nest(65) }).semantic_density_score).toBeGreaterThan(0);
    }
  });

  it("a 600 KB nest of 120,000 levels, as content and as its source, is measured and let go", () => {
    const nest = objects(120_000);
    const m = measure(nest, { source: nest, format: "json" });
    expect(m.parseable).toBe(false);
  });
});
