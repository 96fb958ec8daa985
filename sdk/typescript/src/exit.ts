// Flush at exit: on beforeExit (the event loop ran dry with receipts still queued) and on
// SIGINT / SIGTERM, once per process however many clients there are.
interface Closable {
  close(timeoutMs: number): Promise<unknown>;
}

const clients = new Map<Closable, number>();
const SIGNALS = ["SIGINT", "SIGTERM"] as const;
let installed = false;

function onBeforeExit(): void {
  // Delivery keeps the loop alive while it sends; once all is sent nothing is scheduled and
  // the process exits as it meant to.
  for (const [client, timeoutMs] of clients) void client.close(timeoutMs);
}

function onSignal(signal: NodeJS.Signals): void {
  const closing = [...clients].map(([client, timeoutMs]) => client.close(timeoutMs));
  void Promise.allSettled(closing).then(() => {
    // Re-raise only when nobody else handles the signal: then the default (exit) applies,
    // as it would have without us.
    for (const s of SIGNALS) process.removeListener(s, onSignal);
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  });
}

export function watchExit(client: Closable, timeoutMs: number): () => void {
  clients.set(client, timeoutMs);
  if (!installed) {
    installed = true;
    process.on("beforeExit", onBeforeExit);
    for (const s of SIGNALS) process.on(s, onSignal);
  }
  return () => {
    clients.delete(client);
    if (clients.size === 0 && installed) {
      installed = false;
      process.removeListener("beforeExit", onBeforeExit);
      for (const s of SIGNALS) process.removeListener(s, onSignal);
    }
  };
}
