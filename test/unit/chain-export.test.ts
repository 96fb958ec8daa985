import { describe, expect, it } from "vitest";
import { CHAIN_CSV_HEADER, chainCsvRow } from "@/lib/chains/export";
import { csvField, csvRow } from "@/lib/chains/csv";
import type { ChainSummaryWire } from "@/lib/schemas/chains";

describe("csv", () => {
  it("quotes fields with commas, quotes and line breaks, and leaves others alone", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField('a,"b"')).toBe('"a,""b"""');
    expect(csvField("line\nbreak")).toBe('"line\nbreak"');
    expect(csvField(null)).toBe("");
    expect(csvField(0.5)).toBe("0.5");
    expect(csvRow(["a", 1, null])).toBe("a,1,\r\n");
  });

  it("keeps spreadsheet formulas inert in text, never in numbers", () => {
    expect(csvField('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvField("+1")).toBe("'+1");
    expect(csvField("@sum")).toBe("'@sum");
    expect(csvField("\n=1+1")).toBe(`"'\n=1+1"`);
    expect(csvField(" =1+1")).toBe("' =1+1");
    expect(csvField("\u00a0@sum")).toBe("'\u00a0@sum");
    // Any leading blank: what follows it is not looked at.
    expect(csvField(" plain words")).toBe("' plain words");
    expect(csvField("\tTAB")).toBe("'\tTAB");
    expect(csvField("plain words")).toBe("plain words");
    expect(csvField(-3)).toBe("-3");
  });
});

describe("chain export columns", () => {
  const chain: ChainSummaryWire = {
    chain_id: "c,1",
    content_class: "summary",
    pass_count: 5,
    boundary_count: 1,
    last_pass_id: "c.p5",
    last_pass_number: 5,
    last_verdict: "COLLAPSE_IMMINENT",
    collapse_point: { pass_id: "c.p4", pass_number: 4, verdict: "COLLAPSE_IMMINENT" },
    statuses: ["collapse_imminent", "client_mismatch"],
    client_mismatches: 1,
    checked_mismatches: 0,
    service_name: null,
    integrity_findings: 0,
    min_semantic_density: 0.14,
    measurement_mismatches: 2,
    min_measured_density: 0.08,
    min_size_bytes: 620,
    first_seen_at: "2026-01-01T00:00:00.000Z",
    last_activity_at: "2026-01-01T00:20:00.000Z",
  };

  it("writes one header and one row per chain, flattening the collapse point", () => {
    expect(CHAIN_CSV_HEADER.split(",")).toHaveLength(19);
    expect(chainCsvRow(chain)).toBe(
      '"c,1",summary,collapse_imminent;client_mismatch,5,1,c.p5,5,COLLAPSE_IMMINENT,c.p4,4,COLLAPSE_IMMINENT,1,0,0.14,620,2026-01-01T00:00:00.000Z,2026-01-01T00:20:00.000Z,2,0.08\r\n',
    );
    // A chain never measured: no mismatches, an empty density (not 0, which would read as a void).
    expect(chainCsvRow({ ...chain, measurement_mismatches: 0, min_measured_density: null })).toMatch(/,0,\r\n$/);
    expect(chainCsvRow({ ...chain, collapse_point: null, min_size_bytes: null })).toContain(
      ",COLLAPSE_IMMINENT,,,,1,0,0.14,,",
    );
  });
});
