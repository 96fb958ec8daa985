import { spawnSync } from "node:child_process";
import { parseApiKey } from "../../lib/auth/credentials";
import { fillDataFolder } from "./data-folders";
import { cliScript } from "./scripts";

/** The secret part of an API key (`fl_<id>_<secret>`; base64url, so it may itself hold "_"). */
export function secretOf(key: string): string {
  const parsed = parseApiKey(key);
  if (!parsed) throw new Error(`not an API key: ${JSON.stringify(key.slice(0, 24))}`);
  return parsed.secret;
}

/** The operator CLI (`npm run floorline`) on an embedded data folder no server owns yet. */
export function floorlineCli(dataDir: string, args: string[], input = ""): string {
  fillDataFolder(dataDir);
  const result = spawnSync(process.execPath, [...cliScript(), ...args], {
    env: { ...process.env, FLOORLINE_DATA_DIR: dataDir, DATABASE_URL: "" },
    input,
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`floorline ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}
