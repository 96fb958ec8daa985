// `npm run db:migrate`: applies the migrations in drizzle/ to DATABASE_URL, or to the
// embedded database in FLOORLINE_DATA_DIR (do not run it while the server owns that folder).
import { configFromEnv, openDatabase } from "../db/index";

const config = configFromEnv();
const handle = await openDatabase(config);
await handle.close();
console.log(`migrations applied to ${config.url ? "the PostgreSQL server" : config.dataDir}`);
