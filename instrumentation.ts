// Runs once when the server starts: migrate (and seed the demo) before the first request,
// start the background workers (retention, webhook delivery), and stop them and close the
// embedded database cleanly on shutdown.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { beforeShutdown, startDatabase } = await import("./db/startup");
  await startDatabase();
  // Stopped by the shutdown handler in db/startup.ts, before the database closes.
  const { startRetention, stopRetention } = await import("./db/retention-worker");
  startRetention();
  beforeShutdown(stopRetention);
  const { setStoreStatsSource } = await import("./lib/observability/metrics");
  const { getStoreStats } = await import("./db/queries/originals-metrics");
  setStoreStatsSource(getStoreStats);
  // Folds passes queued by an instance that stopped before it could, then keeps sweeping.
  const { getSummaryQueueStats, startSummariser, stopSummariser } = await import("./db/ingest/summaries");
  startSummariser();
  const { setSummaryQueueSource } = await import("./lib/observability/metrics");
  setSummaryQueueSource(getSummaryQueueStats);
  beforeShutdown(async () => stopSummariser());
  const { ensureWebhookWorker, stopWebhookWorker } = await import("./db/workers/webhook-delivery");
  ensureWebhookWorker();
  beforeShutdown(stopWebhookWorker);
}
