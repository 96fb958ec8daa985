// The scripts as package.json runs them (`npm start`, `npm run floorline`): the server as the
// supervisor starts it (scripts/server.mjs, the start script bundled, no loader); the CLI with
// tsx's loader and the `react-server` condition that its server-only query modules expect.
// Arguments for `process.execPath`, so a test signals the server process itself.
import path from "node:path";

export function startScript(root = process.cwd()): string[] {
  return [path.join(root, "scripts/server.mjs")];
}

export function cliScript(root = process.cwd()): string[] {
  return ["--conditions=react-server", "--import", "tsx/esm", path.join(root, "scripts/floorline.ts")];
}
