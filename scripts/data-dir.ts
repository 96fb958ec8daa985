// `--data-dir`, read the same way by `npm start` (scripts/start.ts) and the CLI
// (scripts/floorline.ts), so one folder named once reaches both.
import path from "node:path";
import { env } from "../lib/env";

/**
 * The flag wins over FLOORLINE_DATA_DIR; a relative folder is taken from the directory the
 * command runs in (for `npm start` and `npm run floorline`, the project folder). The result
 * goes back into FLOORLINE_DATA_DIR, where the database layer reads it.
 */
export function applyDataDirFlag(flag: string | undefined): void {
  const dir = flag ?? env("FLOORLINE_DATA_DIR");
  if (dir) process.env.FLOORLINE_DATA_DIR = path.resolve(dir);
}
