// The file the measurement pool's worker threads load (lib/measure/pool.ts): the task is
// TypeScript, compiled on load by tsx (cached on disk), as `npm start` runs the server itself.
import { tsImport } from "tsx/esm/api";

const task = await tsImport("./worker.ts", import.meta.url);
export default task.default;
