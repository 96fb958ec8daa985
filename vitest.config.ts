import path from "node:path";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

const root = path.dirname(new URL(import.meta.url).pathname);
const alias = {
  "@": root,
  // Query modules are marked server-only; tests are the server here.
  "server-only": path.join(root, "node_modules/server-only/empty.js"),
};

const integration: TestProjectInlineConfiguration["test"] = {
  environment: "node",
  // sdk-app.test.ts drives the SDK's build against the app; every file starts its database
  // from the ones made once per run.
  globalSetup: ["sdk/typescript/test/build.ts", "test/support/database-images.ts"],
  setupFiles: ["test/support/fresh-process-state.ts", "test/support/in-process-requests.ts"],
  // Generous: npm test runs integration beside e2e on two cores, where a test that hashes ten
  // passwords or records eighteen chains took over a minute. A hang still ends the run.
  testTimeout: 180_000,
  hookTimeout: 180_000,
  // Files share worker processes (a fresh module graph per file costs more than most files'
  // tests); test/support/fresh-process-state.ts gives each file the state a process of its own
  // would start with. VITEST_ISOLATE=1 runs every file in a process of its own again.
  isolate: process.env.VITEST_ISOLATE === "1",
};

/**
 * Suites whose subject is not what the database stores or computes, run on PGlite only: the
 * queries they reach are the ones every other suite runs on both databases.
 * - access-matrix: each route × each credential → its status, decided by code from the
 *   registry (the credential lookups run on both in access-sessions and access-throttle);
 * - stateless-vectors: the stateless endpoints, which store nothing (checked on PGlite);
 * - sdk-app: the SDK's delivery (batching, retries, a stopped server) against the built app.
 */
export const ONE_DATABASE_SUITES = [
  "test/integration/access-matrix.test.ts",
  "test/integration/stateless-vectors.test.ts",
  "test/integration/sdk-app.test.ts",
];

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        // 30 s, not vitest's 5 s: a few tests (scrypt hashes, the measurement's reference) take
        // 2-4 s alone and ran past 5 s when the stages of `npm test` share the machine.
        test: { name: "unit", include: ["test/unit/**/*.test.ts"], environment: "node", testTimeout: 30_000 },
      },
      {
        // The SDK's tests run against its build (global setup), as users get it.
        test: {
          name: "sdk",
          include: ["sdk/typescript/test/**/*.test.ts"],
          environment: "node",
          globalSetup: ["sdk/typescript/test/build.ts"],
          // Generous: npm test runs this beside integration and e2e on two cores, where sending
          // 1,200 receipts to a fake server in-process took 35 s. A hang still ends the run.
          testTimeout: 120_000,
        },
      },
      { resolve: { alias }, test: { name: "integration", include: ["test/integration/**/*.test.ts"], ...integration } },
      {
        resolve: { alias },
        test: {
          name: "integration-postgres",
          include: ["test/integration/**/*.test.ts"],
          exclude: ONE_DATABASE_SUITES,
          ...integration,
        },
      },
    ],
  },
});
