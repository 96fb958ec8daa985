// The scripts as package.json runs them (`npm start`, `npm run floorline`): node with tsx's
// loader, the CLI with the `react-server` condition that its server-only query modules expect.
// Arguments for `process.execPath`, so a test signals the server process itself.
import path from "node:path";

export function startScript(root = process.cwd()): string[] {
  return ["--import", "tsx/esm", path.join(root, "scripts/start.ts")];
}

export function cliScript(root = process.cwd()): string[] {
  return ["--conditions=react-server", "--import", "tsx/esm", path.join(root, "scripts/floorline.ts")];
}
