// Dropping a throw-away PostgreSQL database at the end of a test. `drop … with (force)` ends
// the sessions on it, and fails for a role without superuser or pg_signal_backend when one
// of them is not its own: an autovacuum worker that picked the fresh database up, most
// often. The worker is done within moments, so the drop is tried again; a database that
// still cannot go after a minute is left behind with a warning, since that is no failure of
// the test that used it.
import postgres from "postgres";

export async function dropScratchDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        return;
      } catch (error) {
        if (attempt >= 60) {
          console.warn(`[test] could not drop ${name}; leaving it:`, (error as Error).message);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  } finally {
    await admin.end();
  }
}
