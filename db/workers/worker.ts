// Every background job of the server has one shape: a definition with a name and a
// `start()` that returns something to `stop()`. instrumentation.ts starts them all once per
// process (startWorkers) and the shutdown stops them (stopWorkers) before the database
// closes. A table is each job's queue, so every instance runs every worker and a restart
// loses nothing.
import { errorFields, logger } from "@/lib/observability/log";
import { processSingleton } from "@/lib/process-singleton";

export interface RunningWorker {
  /** Stops scheduling and waits for the run under way, if any. */
  stop(): Promise<void>;
}

export interface WorkerDefinition<W extends RunningWorker = RunningWorker> {
  name: string;
  start(): W;
}

/** The workers this process runs, by name: route handlers (bundled apart) reach them here. */
const running = processSingleton("workers", () => new Map<string, RunningWorker>());

/** Starts each worker not yet running in this process. */
export function startWorkers(definitions: readonly WorkerDefinition[]): void {
  for (const definition of definitions) {
    if (!running.has(definition.name)) running.set(definition.name, definition.start());
  }
}

/** This process's running `definition`, if started. */
export function runningWorker<W extends RunningWorker>(definition: WorkerDefinition<W>): W | undefined {
  return running.get(definition.name) as W | undefined;
}

/** Stops every running worker, in the order started; one failing to stop does not keep the others running. */
export async function stopWorkers(): Promise<void> {
  const workers = [...running.entries()];
  running.clear();
  for (const [name, worker] of workers) {
    try {
      await worker.stop();
    } catch (error) {
      logger.error({ err: errorFields(error), worker: name }, "error while stopping background work");
    }
  }
}
