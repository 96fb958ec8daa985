import { rmSync } from "node:fs";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "./test/support/chromium";

// Playwright evaluates this file again in every worker: keep the chosen port and data
// folder in the environment so all of them talk to the one server.
process.env.E2E_PORT ??= String(3900 + Math.floor(Math.random() * 90));
process.env.E2E_DATA_DIR ??= path.join(process.cwd(), ".floorline", `e2e-${process.env.E2E_PORT}`);
if (!process.env.E2E_SERVER_STARTED) {
  rmSync(process.env.E2E_DATA_DIR, { recursive: true, force: true });
  process.env.E2E_SERVER_STARTED = "1";
}
const baseURL = `http://127.0.0.1:${process.env.E2E_PORT}`;

export default defineConfig({
  testDir: "test/e2e",
  globalSetup: "./test/e2e/global-setup.ts",
  // Two minutes: CI's machine can be two to three times slower than a laptop, and a page that
  // renders in 10 s here took over 60 s there beside the integration stages. A hang still ends.
  timeout: 120_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  reporter: [["list"]],
  use: {
    baseURL,
    trace: "off",
    video: "off",
    screenshot: "only-on-failure",
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
  },
  projects: [{ name: "chromium", use: { ...devices["Desktop Chrome"], channel: undefined } }],
  webServer: {
    command: "node scripts/server.mjs",
    url: `${baseURL}/api/v1/health`,
    reuseExistingServer: false,
    timeout: 240_000,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
    env: {
      PORT: process.env.E2E_PORT,
      HOST: "127.0.0.1",
      FLOORLINE_DATA_DIR: process.env.E2E_DATA_DIR,
      FLOORLINE_DEMO: "1",
      DATABASE_URL: "",
      NEXT_TELEMETRY_DISABLED: "1",
      // One line per request would bury the test report (the fuzz suite alone sends thousands).
      LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
    },
  },
});
