// A page that lives as long as a Playwright worker, for checks that only read what a page
// shows (axe, widths). A fresh context costs Chromium a renderer process and a cold compile
// of the app's scripts, about 2 s of CPU against under 1 s for a page load in a warm one
// (measured on this project's pages); the accessibility sweep loads some fifty pages.
// Each test gets it at desktop size in the light scheme; navigating resets everything else.
import { test as base, devices, type Page } from "@playwright/test";

const DESKTOP = devices["Desktop Chrome"].viewport;

export const test = base.extend<{ sharedPage: Page }, { workerPage: Page }>({
  workerPage: [
    async ({ browser }, use) => {
      const context = await browser.newContext({
        baseURL: `http://127.0.0.1:${process.env.E2E_PORT}`,
        viewport: DESKTOP,
        userAgent: devices["Desktop Chrome"].userAgent,
      });
      await use(await context.newPage());
      await context.close();
    },
    { scope: "worker" },
  ],
  sharedPage: async ({ workerPage }, use) => {
    await workerPage.setViewportSize(DESKTOP);
    await workerPage.emulateMedia({ colorScheme: "light" });
    await use(workerPage);
  },
});
export { expect } from "@playwright/test";
