// The server `npm start` runs (scripts/start.ts) with no TypeScript loader in the process: the
// script and what it imports are bundled into one ES module by esbuild, kept on disk and
// bundled again when a file they were made from changes (lib/bundle.mjs, as the measurement's
// threads load theirs). Run through tsx instead, the server carried tsx's loader thread, about
// 30 MB of resident memory. `node --import tsx/esm scripts/start.ts` still runs the same script.
import { importBundled } from "../lib/bundle.mjs";

await importBundled("scripts/start.ts");
