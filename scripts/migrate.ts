// `npm run db:migrate`: applies the migrations in drizzle/ to DATABASE_URL, or to the
// embedded database in FLOORLINE_DATA_DIR. Refuses (naming the owner's pid) when a server or
// another process holds that folder.
import { configFromEnv } from "../db/config";
import { openDatabase } from "../db/index";

const config = configFromEnv();
try {
  const handle = await openDatabase(config);
  await handle.close();
  console.log(`migrations applied to ${config.url ? "the PostgreSQL server" : config.dataDir}`);
} catch (error) {
  const code = (error as { code?: unknown }).code;
  console.error(code === "DATA_FOLDER_LOCKED" ? (error as Error).message : error);
  process.exit(1);
}
