// Runs once when the server starts: migrate (and seed the demo) before the first request,
// start background work (retention), and close the embedded database cleanly on shutdown.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startDatabase } = await import("./db/startup");
  await startDatabase();
  // Stopped by the shutdown handler in db/startup.ts, before the database closes.
  const { startRetention } = await import("./db/retention-worker");
  startRetention();
}
