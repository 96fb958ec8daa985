// The retention worker: deletes chains older than FLOORLINE_RETENTION_DAYS, or than the days
// their class's policy sets, a few batches at a time, then sleeps. Every instance runs one (a
// lock in the database lets one of them work at a time). It runs even without the variable:
// a policy saved on any instance may set days for its class at any time.
import { deleteExpiredChains } from "../queries/retention";
import type { RunningWorker, WorkerDefinition } from "./worker";
import { env, envInvalid, envRecord, type EnvSource } from "@/lib/env";
import { errorFields, logger } from "@/lib/observability/log";
import { reportDatabaseTrouble } from "@/lib/errors";

const INTERVAL_MS = 5 * 60_000;
/** Between calls while a backlog remains. */
const BACKLOG_MS = 1_000;

/** FLOORLINE_RETENTION_DAYS as a number of days, or null (keep everything) when unset or not a positive number. */
export function retentionDaysFromEnv(source?: EnvSource): number | null {
  return env("FLOORLINE_RETENTION_DAYS", source) ?? null;
}

export type RetentionWorker = RunningWorker;

export function startRetentionWorker(options: {
  /** FLOORLINE_RETENTION_DAYS; null keeps every class without days of its own. */
  days: number | null;
  intervalMs?: number;
  now?: () => Date;
  onError?: (error: unknown) => void;
}): RetentionWorker {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = (async () => {
      let next = options.intervalMs ?? INTERVAL_MS;
      try {
        const run = await deleteExpiredChains({ now: (options.now ?? (() => new Date()))(), days: options.days });
        if (run.chains > 0)
          logger.info(
            `retention: deleted ${run.chains} chains past their kept days (${run.passes} passes, ${run.boundaries} boundaries, ${run.traces} traces, ${run.rejections} trace rejections, ${run.originals} originals)`,
          );
        if (!run.complete) next = Math.min(next, BACKLOG_MS);
      } catch (error) {
        // Through the redacting helper: a failed statement's error carries its parameters.
        const report =
          options.onError ??
          ((e: unknown) => {
            if (!reportDatabaseTrouble(e, "retention")) logger.error({ err: errorFields(e) }, "retention run failed");
          });
        report(error);
      }
      if (!stopped) timer = setTimeout(tick, next);
    })();
  };
  timer = setTimeout(tick, 0);
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** The process's worker; says what it keeps, and that a bad FLOORLINE_RETENTION_DAYS keeps everything. */
export const retention: WorkerDefinition<RetentionWorker> = {
  name: "retention",
  start() {
    const days = retentionDaysFromEnv();
    if (envInvalid("FLOORLINE_RETENTION_DAYS"))
      logger.error(
        `FLOORLINE_RETENTION_DAYS=${envRecord().FLOORLINE_RETENTION_DAYS} is not a positive number: keeping everything`,
      );
    if (days !== null) logger.info(`retention: keeping ${days} days of chains`);
    return startRetentionWorker({ days });
  },
};
