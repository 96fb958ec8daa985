// The server script runs under tsx, which turns Node's source maps on for the whole process;
// with them on, Node keeps the parsed map of every chunk the server requires (a third of its
// live heap). The script turns them off again unless the operator asks for them.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { startScript } from "../support/scripts";

// Reports the switch as the process ends: `--help` exits before Next.js loads, after the
// script's top has run.
const PROBE = `data:text/javascript,process.on("exit",()=>process.stderr.write("source maps: "+process.sourceMapsEnabled+"\\n"))`;

const UNDER_TSX = ["--import", "tsx/esm", "scripts/start.ts"];

function sourceMapsAtExit(extraArgs: string[], nodeOptions?: string, script = startScript()): string {
  const result = spawnSync(process.execPath, [...extraArgs, "--import", PROBE, ...script, "--help"], {
    env: { ...process.env, NODE_OPTIONS: nodeOptions ?? "" },
    encoding: "utf8",
  });
  expect(result.status, result.stderr).toBe(0);
  return /source maps: (\w+)/.exec(result.stderr)?.[1] ?? `no report in: ${result.stderr}`;
}

describe("scripts/start.ts and source maps", () => {
  it("turns off the source maps tsx turned on, and leaves them off bundled", () => {
    expect(sourceMapsAtExit([], undefined, UNDER_TSX)).toBe("false");
    expect(sourceMapsAtExit([])).toBe("false");
  });

  it("keeps them when asked for on the command line or in NODE_OPTIONS", () => {
    for (const script of [UNDER_TSX, startScript()]) {
      expect(sourceMapsAtExit(["--enable-source-maps"], undefined, script)).toBe("true");
      expect(sourceMapsAtExit([], "--enable-source-maps", script)).toBe("true");
    }
  });
});
