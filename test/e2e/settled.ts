// What "the page has finished loading" means for a check of the whole page (axe, widths,
// screenshots): hydrated with its header final (the nav has read the session), no streamed
// part still showing its skeleton, and every chart drawn. Network idle is no such signal:
// a page that holds a live connection never reaches it.
import type { Page } from "@playwright/test";

export async function settled(page: Page, timeout = 15_000): Promise<void> {
  await page.waitForLoadState("load");
  await page.waitForFunction(
    () => {
      const nav = document.querySelector("nav.site-nav");
      if (nav && nav.getAttribute("data-session") !== "ready") return false;
      if (document.querySelector(".skeleton, [aria-busy='true']")) return false;
      return [...document.querySelectorAll("figure.chart-figure")].every(
        (figure) => figure.querySelector("svg.recharts-surface") || figure.querySelector(".empty"),
      );
    },
    undefined,
    { timeout, polling: 100 },
  );
}
