// Playwright's global setup: the migrated data folder the specs' own servers start from
// (test/support/data-folders.ts). The shared web server starts from an empty folder, as a
// user's first `npm start` does.
import path from "node:path";
import { makeDataFolderTemplate } from "../support/data-folders";

export default async function globalSetup(): Promise<() => void> {
  return makeDataFolderTemplate(path.join(process.cwd(), ".floorline"));
}
