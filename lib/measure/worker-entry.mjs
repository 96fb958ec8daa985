// The file the measurement pool's worker threads load (lib/measure/pool.ts): the task is
// TypeScript, bundled into one module and kept until a file of it changes (lib/bundle.mjs).
import { importBundled } from "../bundle.mjs";

const task = await importBundled("lib/measure/worker.ts");
export default task.default;
