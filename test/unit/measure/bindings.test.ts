// Bindings (docs/measurement.md, "Density", bindings): a fact counts with the record it belongs
// to. Hand-made lists, one rule per test; each test fails when its rule breaks.
import { describe, expect, it } from "vitest";
import { measure } from "@/lib/measure/index";

const ITEMS = [
  ["08:15:01", "alpha:amd64", "1.4.0-1", "1.4.0-3"],
  ["08:15:07", "bravo:amd64", "2.0.1-2", "2.0.1-5"],
  ["08:15:12", "charlie:amd64", "0.9.8-1", "0.9.9-1"],
  ["08:15:20", "delta:amd64", "5.2.0-4", "5.3.1-1"],
] as const;
/** Item k's new version. */
const newOf = (k: number) => (ITEMS[k % ITEMS.length] as readonly string[])[3] as string;
const line = ([time, name, from, to]: readonly string[]) => `2026-03-02 ${time} install ${name} ${from} ${to}`;
const SOURCE = ITEMS.map(line).join("\n");
/** The list with item i's last value replaced by `value`. */
const withNew = (i: number, value: string) =>
  ITEMS.map((item, k) => (k === i ? line([...item.slice(0, 3), value]) : line(item))).join("\n");
const measured = (content: string, source = SOURCE) => measure(content, { source, format: "text" });

describe("bindings: a fact counts with the record it belongs to", () => {
  it("keeps a list whose items are intact, in any order", () => {
    expect(measured(SOURCE).semantic_density_score).toBe(1);
    expect(measured([...ITEMS].reverse().map(line).join("\n")).semantic_density_score).toBe(1);
  });

  it("does not retain a value moved to another item of the list, and wastes the lines that bind it", () => {
    const swapped = ITEMS.map((item, k) => line([...item.slice(0, 3), newOf(k ^ 1)])).join("\n");
    const answer = measured(swapped);
    // Every token is there, but no item keeps its new version.
    expect(answer.facts).toMatchObject({ retained: 13, lost: 4 });
    expect(answer.lost_examples).toEqual(["1.4.0-3", "2.0.1-5", "0.9.9-1", "5.3.1-1"]);
    expect(answer.components.efficiency).toBe(0);
    expect(answer.semantic_density_score).toBe(0);
    // One item wrong: its value is lost and its line wasted; the others keep theirs.
    const one = measured(withNew(0, "2.0.1-5"));
    expect(one.lost_examples).toEqual(["1.4.0-3"]);
    expect(one.components.efficiency).toBeGreaterThan(0.7);
    expect(one.components.efficiency).toBeLessThan(1);
  });

  it("retains a moved value that another stretch binds to its own item, and still wastes the wrong one", () => {
    const swapped = ITEMS.map((item, k) => line([...item.slice(0, 3), newOf(k ^ 1)])).join("\n");
    const right = "bravo:amd64 went from 2.0.1-2 to 2.0.1-5 at 08:15:07.";
    // Whichever comes first.
    for (const content of [`${swapped}\n${right}`, `${right}\n${swapped}`]) {
      const answer = measured(content);
      expect(answer.lost_examples).toEqual(["1.4.0-3", "0.9.9-1", "5.3.1-1"]);
      expect(answer.components.efficiency).toBeLessThan(0.3);
    }
  });

  it("judges nothing in a summary that aggregates items or adds a range to one", () => {
    const summary =
      "On 2026-03-02 between 08:15:01 and 08:15:20 dpkg installed alpha:amd64 (1.4.0-1 to 1.4.0-3), bravo:amd64 " +
      "(2.0.1-2 to 2.0.1-5), charlie:amd64 (0.9.8-1 to 0.9.9-1) and delta:amd64 (5.2.0-4 to 5.3.1-1).";
    const answer = measured(summary);
    expect(answer.components.efficiency).toBe(1);
    expect(answer.lost_examples).toEqual(["08:15:07", "08:15:12"]);
    const together = measured("alpha:amd64 and bravo:amd64 went from 1.4.0-1 and 2.0.1-2 to 1.4.0-3 and 2.0.1-5.");
    expect(together.components.efficiency).toBe(1);
  });

  it("judges a value only in the place of a fact of the same kind of token the stretch leaves out", () => {
    // Item 1 whole, with item 2's version in the place of its own: judged.
    expect(measured("2026-03-02 08:15:01 install alpha:amd64 1.4.0-1 2.0.1-5").components.efficiency).toBe(0);
    // Item 1 without its new version, with item 2's time: a time takes no version's place.
    const time = measured("2026-03-02 08:15:01 install alpha:amd64 1.4.0-1 08:15:07");
    expect(time.components.efficiency).toBe(1);
    expect(time.lost_examples).not.toContain("08:15:07");
  });

  it("judges within a stretch: punctuation parts a value from the item before it", () => {
    const stretches = ITEMS.map(([, name, from], k) => `${name} ${from}, then ${newOf(k + 1)}`).join("\n");
    expect(measured(stretches).components.efficiency).toBe(1);
    const one = ITEMS.map(([, name, from], k) => `${name} ${from} then ${newOf(k + 1)}`).join("\n");
    expect(measured(one).components.efficiency).toBeLessThan(0.5);
  });

  it("counts a fact the stretch states twice as one: a record is named by two facts of it", () => {
    expect(measured("alpha:amd64 alpha:amd64 2.0.1-5").components.efficiency).toBe(1);
    expect(measured("08:15:01 alpha:amd64 2.0.1-5").components.efficiency).toBe(0);
  });

  it("restates one item only: a stretch holding values of several other items is not judged", () => {
    expect(measured("alpha:amd64 1.4.0-1 with 2.0.1-5 and 0.9.9-1").components.efficiency).toBe(1);
    expect(measured("alpha:amd64 1.4.0-1 with 2.0.1-5").components.efficiency).toBe(0);
  });

  it("restates the item most of its facts name: a shared fact does not hide a moved one, a tie is not judged", () => {
    // delta and echo share their time: with it, echo's version names echo's line by two facts,
    // delta's by three (its name and old version too). The stretch restates delta.
    const source = [
      "08:15:20 install delta:amd64 5.2.0-4 5.3.1-1",
      "08:15:20 install echo:all 3.2.0-1 3.2.0-4",
      "08:15:31 install fox:all 7.1.0-1 7.1.0-2",
    ].join("\n");
    // Whichever comes first in the stretch.
    for (const content of [
      "3.2.0-4 08:15:20 install delta:amd64 5.2.0-4",
      "08:15:20 install delta:amd64 5.2.0-4 3.2.0-4",
    ])
      expect(measured(content, source).components.efficiency, content).toBe(0);
    // Two facts name delta and two echo: no one item is restated.
    expect(measured("08:15:20 install delta:amd64 3.2.0-4", source).components.efficiency).toBe(1);
  });

  it("moves no value by a place it holds more than four times along its row", () => {
    // alpha and bravo make each row a kind of its own; the rows share a template.
    const source = ["a1 b1 alpha 5 5 5 5 5 9", "a2 b2 bravo 7 7 7 7 7 8", "a3 b3 charlie 6 6 4 4 6 3"].join("\n");
    // 8 stands at one place of bravo's row, where alpha's row has its 9: moved.
    expect(measured("a1 b1 alpha 5 8", source).components.efficiency).toBe(0);
    // 7 stands at five places of bravo's row: a value repeated along a row is no field of it.
    expect(measured("a1 b1 alpha 9 7", source).components.efficiency).toBe(1);
  });

  it("reads a table's rows as items: a value in another row's place is moved, commas or not", () => {
    const source = [
      "version,codename,series,created,release",
      "7,Wheezy,wheezy,2011-02-06,2013-05-04",
      "8,Jessie,jessie,2013-05-04,2015-04-26",
      "9,Stretch,stretch,2015-04-26,2017-06-17",
    ].join("\n");
    // Each codename is a word of its own row alone (a value of it, not its kind): the rows are
    // items of one list.
    const moved = measured("7,Jessie,jessie,2011-02-06,2013-05-04\n8,Stretch,stretch,2013-05-04,2015-04-26", source);
    expect(moved.components.efficiency).toBe(0);
    expect(moved.lost_examples).toEqual(expect.arrayContaining(["Jessie", "Stretch"]));
    expect(
      measured("7,Wheezy,2011-02-06,2013-05-04\n8,Jessie,2013-05-04,2015-04-26", source).components.efficiency,
    ).toBe(1);
    // In prose too: a release date in the place of another release's.
    expect(measured("Debian 7 Wheezy was released on 2015-04-26.", source).components.efficiency).toBe(0);
    expect(measured("Debian 7 Wheezy was released on 2013-05-04.", source).components.efficiency).toBe(1);
  });

  it("composes facts of lines of another kind: a log's start and its last uptime", () => {
    const log = [
      "2026-12-04 03:12:51.523 UTC [31691] LOG:  starting PostgreSQL 15.18 on x86_64-pc-linux-gnu",
      "2026-12-04 03:12:51.541 UTC [31694] LOG:  database system was interrupted; last known up at 2026-12-04 01:34:13 UTC",
      "2026-12-04 03:12:51.690 UTC [31691] LOG:  database system is ready to accept connections",
    ].join("\n");
    const answer = measured("PostgreSQL 15.18 on x86_64-pc-linux-gnu was last up 01:34:13", log);
    expect(answer.components.efficiency).toBe(1);
    expect(answer.lost_examples).not.toContain("01:34:13");
  });

  it("composes facts of lines of another kind: a commit's hash with its date", () => {
    const commit =
      "commit 5455f286d267074cdc8f927564ac8326e82ae796\nAuthor: Ada Example <ada@example.com>\n" +
      "Date:   Fri Dec 4 05:24:05 2026 +0000\n\n    Export keys from the CLI";
    const answer = measured("5455f286d267074cdc8f927564ac8326e82ae796 Dec 4 05:24:05 +0000 ada@example.com", commit);
    expect(answer.components.efficiency).toBe(1);
    expect(answer.lost_examples).not.toContain("5455f286d267074cdc8f927564ac8326e82ae796");
  });

  it("reads a line's kind from its words, not from words inside its values", () => {
    // "tzdata" and "dfsg" are words inside values: the three lines are still items of one list.
    const source = [
      "2026-05-09 07:28:46 upgrade tzdata:all 2025b-0+deb12u1 2025b-0+deb12u2",
      "2026-05-09 07:29:02 upgrade gpgv:amd64 2.2.40-1.1 2.2.40-1.1+deb12u2",
      "2026-05-09 07:29:04 upgrade libxml2:amd64 2.9.14+dfsg-1.3~deb12u1 2.9.14+dfsg-1.3~deb12u5",
    ].join("\n");
    const moved = [
      "2026-05-09 07:28:46 upgrade tzdata:all 2025b-0+deb12u1 2.2.40-1.1+deb12u2",
      "2026-05-09 07:29:02 upgrade gpgv:amd64 2.2.40-1.1 2.9.14+dfsg-1.3~deb12u5",
      "2026-05-09 07:29:04 upgrade libxml2:amd64 2.9.14+dfsg-1.3~deb12u1 2025b-0+deb12u2",
    ].join("\n");
    expect(measured(moved, source).components.efficiency).toBe(0);
  });

  it("asks it of text against text only: a JSON string holding the list is not read by line", () => {
    const swapped = withNew(0, "2.0.1-5");
    expect(measure(JSON.stringify({ log: swapped }), { source: SOURCE, format: "any" }).components.efficiency).toBe(1);
  });
});
