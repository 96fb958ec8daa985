import path from "node:path";
import { defineConfig } from "vitest/config";

const root = path.dirname(new URL(import.meta.url).pathname);
const alias = {
  "@": root,
  // Query modules are marked server-only; tests are the server here.
  "server-only": path.join(root, "node_modules/server-only/empty.js"),
};

export default defineConfig({
  test: {
    projects: [
      { resolve: { alias }, test: { name: "unit", include: ["test/unit/**/*.test.ts"], environment: "node" } },
      {
        // The SDK's tests run against its build (global setup), as users get it.
        test: {
          name: "sdk",
          include: ["sdk/typescript/test/**/*.test.ts"],
          environment: "node",
          globalSetup: ["sdk/typescript/test/build.ts"],
          testTimeout: 30_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          environment: "node",
          // sdk-app.test.ts drives the SDK's build against the app.
          globalSetup: ["sdk/typescript/test/build.ts"],
          setupFiles: ["test/support/in-process-requests.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
