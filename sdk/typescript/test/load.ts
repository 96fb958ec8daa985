// The SDK as built (dist/), typed from its sources: what the tests exercise is what ships.
import { fileURLToPath } from "node:url";

export const DIST_ENTRY = fileURLToPath(new URL("../dist/sdk/typescript/src/index.js", import.meta.url));

export const sdk = (await import(DIST_ENTRY)) as typeof import("../src/index");
