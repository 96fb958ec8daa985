// Every page of the demo, read as an operator reads it: the header must not say one thing and
// the body another, and no page may be wider than a 390 px phone. The pages come from the
// app's own list APIs (the demo's chains as the seed names them, every original and trace the
// store lists), so a chain or original added to the demo is walked without anyone listing it.
// The rules are stated over what a page shows, never over a particular chain.
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./shared-page";
import { settled } from "./settled";

const PHONE = { width: 390, height: 844 };
/** The demo's chains: the scenarios' `demo-*` and the search agents' `sr-*` (demo/seed.ts). */
const DEMO_CHAIN_PREFIXES = ["demo-", "sr-"];

interface Listed {
  items: Record<string, unknown>[];
  next_cursor?: string | null;
}

async function listAll(request: APIRequestContext, path: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | null | undefined;
  do {
    const url = new URL(path, "http://x");
    url.searchParams.set("limit", "100");
    if (cursor) url.searchParams.set("cursor", cursor);
    const answer = await request.get(`${url.pathname}${url.search}`);
    expect(answer.status(), path).toBe(200);
    const page = (await answer.json()) as Listed;
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}

async function demoChainIds(request: APIRequestContext): Promise<string[]> {
  const ids = new Set<string>();
  for (const prefix of DEMO_CHAIN_PREFIXES) {
    for (const c of await listAll(request, `/api/v1/chains?q=${prefix}`)) {
      const id = String(c.chain_id);
      if (id.startsWith(prefix)) ids.add(id);
    }
  }
  return [...ids].sort();
}

/** Loads a page (the viewport is already the phone's) and waits until it has settled. */
async function open(page: Page, path: string): Promise<void> {
  const answer = await page.goto(path);
  expect(answer?.status(), path).toBe(200);
  await settled(page);
}

/** Collects what is wrong instead of stopping at the first: one run names every contradiction. */
class Findings {
  readonly list: string[] = [];
  check(ok: boolean, what: string): void {
    if (!ok) this.list.push(what);
  }
}

/** The page was loaded at the phone's width and has settled: nothing may reach past it. */
async function phoneWidth(page: Page, path: string, findings: Findings): Promise<void> {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  findings.check(width <= PHONE.width, `${path}: ${width} px wide at a ${PHONE.width} px phone`);
}

/** What the chain page's header, badges, charts and failure note say, read from the page. */
async function readChainPage(page: Page) {
  return page.evaluate(() => {
    const summary = document.querySelector("[data-testid=collapse-summary]");
    // The label's own words; its <title> (the native tooltip) says more.
    const markers = [...document.querySelectorAll("[data-testid$=-collapse-marker] text")].map(
      (m) => m.textContent ?? "",
    );
    const failure = document.querySelector("[data-testid=chain-failure]");
    const statuses = [...document.querySelectorAll("header .badges [data-status]")].map((b) =>
      b.getAttribute("data-status"),
    );
    const restores = [...document.querySelectorAll("[data-testid=restore-original]")].map((a) => ({
      href: a.getAttribute("href") ?? "",
      match: a.getAttribute("data-match"),
      restored: a.closest("li")?.querySelector("code")?.textContent ?? "",
    }));
    return {
      floorPoint: summary?.getAttribute("data-floor-point") ?? null,
      floorPass: summary?.getAttribute("data-pass") ?? null,
      summaryText: summary?.textContent ?? "",
      markers,
      charts: document.querySelectorAll("figure.chart-figure").length,
      failurePass: failure?.getAttribute("data-pass") ?? null,
      statuses,
      restores,
    };
  });
}

/** The chart marker's first word for each header reading (the header's "guarded at pass 4"). */
const MARK: Record<string, string> = { guarded: "guarded", collapsed: "collapse", unanswered: "floor reached" };

test.describe("the demo agrees with itself, and fits a phone", () => {
  test.describe.configure({ timeout: 600_000 });

  test("every demo chain page: header, badges, charts and failure note tell one story", async ({
    sharedPage: page,
    request,
  }) => {
    const ids = await demoChainIds(request);
    // The seed's scenarios and its search agents: a walk of nothing proves nothing.
    expect(ids.filter((id) => id.startsWith("demo-")).length).toBeGreaterThanOrEqual(5);
    expect(ids.filter((id) => id.startsWith("sr-")).length).toBeGreaterThanOrEqual(10);
    await page.setViewportSize(PHONE);
    const findings = new Findings();
    const restores: { chain: string; href: string; restored: string }[] = [];
    for (const id of ids) {
      const path = `/chains/${encodeURIComponent(id)}`;
      await open(page, path);
      const c = await readChainPage(page);
      const at = `${path}:`;
      findings.check(c.floorPoint !== null, `${at} no floor summary in the header`);
      // The header's reading of the first floor pass and the status badges say the same.
      findings.check(
        c.statuses.includes("guarded") === (c.floorPoint === "guarded"),
        `${at} badges ${c.statuses} vs header "${c.summaryText}"`,
      );
      findings.check(
        c.statuses.includes("collapsed") === (c.floorPoint === "collapsed") || c.floorPoint === "none",
        `${at} badges ${c.statuses} vs header "${c.summaryText}"`,
      );
      // Each chart marks the same pass in the header's words, and marks none when there is none.
      if (c.floorPoint === "none") {
        findings.check(c.markers.length === 0, `${at} header "${c.summaryText}" but the charts mark ${c.markers}`);
      } else {
        findings.check(c.markers.length === c.charts, `${at} ${c.charts} charts, ${c.markers.length} floor markers`);
        for (const marker of c.markers) {
          const word = MARK[c.floorPoint ?? ""];
          findings.check(
            marker.startsWith(`${word} · pass ${c.floorPass}`),
            `${at} header "${c.summaryText}" but a chart says "${marker}"`,
          );
        }
      }
      // A failure named below is one the header and badges own up to.
      if (c.failurePass !== null) {
        findings.check(
          !c.statuses.includes("healthy") && !c.statuses.includes("guarded"),
          `${at} "failed at pass ${c.failurePass}" under badges ${c.statuses}`,
        );
        const owned =
          c.floorPoint === "collapsed" ||
          c.floorPoint === "unanswered" ||
          (c.summaryText.includes("on the agent's claims") &&
            (c.statuses.includes("checked_mismatch") || c.statuses.includes("measurement_mismatch")));
        findings.check(owned, `${at} header "${c.summaryText}" but the page says it failed at pass ${c.failurePass}`);
      }
      if (c.statuses.includes("healthy")) {
        findings.check(c.floorPoint === "none", `${at} healthy, yet the header says "${c.summaryText}"`);
      }
      for (const r of c.restores) {
        if (r.match === "output_hash") restores.push({ chain: id, href: r.href, restored: r.restored });
      }
      await phoneWidth(page, path, findings);
    }
    // A restore that says it brings back its pass's cached original leads to an original whose
    // own page names that pass as having produced it.
    for (const r of restores) {
      await open(page, r.href);
      // Either its recorded source, confirmed as that pass's output, or another pass naming its hash.
      const produced = await page.evaluate((restored) => {
        const source = document.querySelector("[data-testid=provenance-source]");
        const link = source?.querySelector("[data-testid=source-chain-link]")?.getAttribute("href") ?? "";
        const confirmed =
          source?.getAttribute("data-check") === "confirmed" &&
          new URL(link, location.href).searchParams.get("pass") === restored &&
          (source?.textContent ?? "").includes("as its output");
        const listed = [...document.querySelectorAll("[data-testid=matching-passes] li")].some(
          (li) => li.textContent?.includes(`(${restored})`) && li.textContent.includes("produced this content"),
        );
        return confirmed || listed;
      }, r.restored);
      findings.check(produced, `${r.chain}: its restore of ${r.restored} links to ${r.href}, which does not say so`);
    }
    expect(findings.list).toEqual([]);
  });

  test("every demo pass a server check disagrees with: the floor checks say so", async ({
    sharedPage: page,
    request,
  }) => {
    await page.setViewportSize(PHONE);
    const findings = new Findings();
    let walked = 0;
    for (const id of await demoChainIds(request)) {
      const detail = (await (await request.get(`/api/v1/chains/${encodeURIComponent(id)}`)).json()) as {
        passes: { pass_id: string; pass_number: number; server_checks?: { problems?: string[] } | null }[];
        collapse_point: { pass_id: string } | null;
      };
      const panels = detail.passes.filter(
        (p) => (p.server_checks?.problems?.length ?? 0) > 0 || p.pass_id === detail.collapse_point?.pass_id,
      );
      for (const p of panels) {
        const path = `/chains/${encodeURIComponent(id)}?pass=${encodeURIComponent(p.pass_id)}&from=${p.pass_number}`;
        await open(page, path);
        await expect(page.getByTestId("floor-checks")).toBeVisible();
        walked++;
        // A check that names a problem in the content never reads plain "holds".
        const rows = await page.getByTestId("floor-checks").evaluate((table) =>
          [...table.querySelectorAll("tbody tr")].map((tr) => ({
            gate: tr.getAttribute("data-gate"),
            problems: tr.querySelectorAll("[data-testid=check-problems] li").length,
            result: tr.querySelector("td:last-child")?.textContent?.trim() ?? "",
          })),
        );
        for (const r of rows) {
          findings.check(
            r.problems === 0 || r.result !== "holds",
            `${path}: ${r.gate} lists ${r.problems} problem(s) and says "${r.result}"`,
          );
        }
        await phoneWidth(page, path, findings);
      }
    }
    expect(walked).toBeGreaterThan(0);
    expect(findings.list).toEqual([]);
  });

  test("every original and trace page: status and body agree, counts match their lists", async ({
    sharedPage: page,
    request,
  }) => {
    await page.setViewportSize(PHONE);
    const findings = new Findings();
    const originals = await listAll(request, "/api/v1/originals");
    const traces = await listAll(request, "/api/v1/traces");
    expect(originals.length).toBeGreaterThanOrEqual(4);
    expect(traces.length).toBeGreaterThanOrEqual(1);
    for (const o of originals) {
      const path = `/originals/${o.hash}`;
      await open(page, path);
      const seen = await page.evaluate(() => ({
        status: document.querySelector("[data-testid=original-status]")?.textContent?.trim() ?? "",
        tombstone: document.querySelector("[data-testid=tombstone]") !== null,
        check: document.querySelector("[data-testid=provenance-source]")?.getAttribute("data-check") ?? null,
        source: document.querySelector("[data-testid=source-chain-link]")?.getAttribute("href") ?? "",
        matching: [...document.querySelectorAll("[data-testid=matching-passes] li")].map((li) => li.textContent ?? ""),
      }));
      // "live" above and a tombstone below, or the other way round, is a page at odds with itself.
      findings.check(
        seen.status.startsWith("live") !== seen.tombstone,
        `${path}: "${seen.status}" and tombstone ${seen.tombstone}`,
      );
      // The account of where it came from agrees with the passes that name its hash.
      const recordedPass = seen.source ? new URL(seen.source, "http://x").searchParams.get("pass") : null;
      if (seen.check === "hashes_differ" && recordedPass) {
        findings.check(
          !seen.matching.some((m) => m.includes(recordedPass)),
          `${path}: says ${recordedPass}'s hashes differ, yet lists it among the passes naming its hash`,
        );
      }
      await phoneWidth(page, path, findings);
    }
    for (const t of traces) {
      const path = `/traces/${encodeURIComponent(String(t.trace_id))}`;
      await open(page, path);
      const seen = await page.evaluate(() => {
        const text = (id: string) => document.querySelector(`[data-testid=${id}]`)?.textContent?.trim() ?? null;
        const heading = (prefix: string) =>
          [...document.querySelectorAll("h2")].find((h) => h.textContent?.startsWith(prefix))?.textContent ?? "";
        return {
          digestStatus: document.querySelector("[data-testid=digest-status]")?.getAttribute("data-status") ?? null,
          server: text("residual-digest"),
          client: text("client-digest"),
          axioms: document.querySelectorAll("[data-testid=axiom]").length,
          axiomsHeading: heading("Binding axioms"),
          walls: document.querySelectorAll("[data-testid=invalidation]").length,
          wallsHeading: heading("Invalidated paths"),
        };
      });
      const expected = seen.client === null ? "absent" : seen.client === seen.server ? "match" : "mismatch";
      findings.check(
        seen.digestStatus === expected,
        `${path}: digest badge "${seen.digestStatus}" beside server ${seen.server} and client ${seen.client}`,
      );
      findings.check(
        seen.axiomsHeading.includes(`(${seen.axioms})`),
        `${path}: "${seen.axiomsHeading}" over ${seen.axioms}`,
      );
      findings.check(
        seen.wallsHeading.includes(`(${seen.walls})`),
        `${path}: "${seen.wallsHeading}" over ${seen.walls}`,
      );
      await phoneWidth(page, path, findings);
    }
    expect(findings.list).toEqual([]);
  });
});
