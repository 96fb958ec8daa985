// Runs once when the server starts: migrate (and seed the demo) before the first request,
// then start the background workers (db/workers/). The shutdown (db/lifecycle.ts) stops
// them, then closes the database.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { registerPageGate } = await import("./app/_access/page-gate");
  registerPageGate();
  const { startDatabase } = await import("./db/startup");
  const { seedDemoIfEmpty } = await import("./demo/seed");
  await startDatabase(seedDemoIfEmpty);
  const { setStoreStatsSource, setSummaryQueueSource } = await import("./lib/observability/metrics");
  const { getStoreStats } = await import("./db/queries/originals/metrics");
  const { getSummaryQueueStats } = await import("./db/ingest/summaries");
  setStoreStatsSource(getStoreStats);
  setSummaryQueueSource(getSummaryQueueStats);
  const { setStartupPhase } = await import("./db/lifecycle");
  setStartupPhase("starting the background workers");
  const { WORKERS } = await import("./db/workers");
  const { startWorkers } = await import("./db/workers/worker");
  startWorkers(WORKERS);
}
