// The summariser's sweep: asks for a run at start (rows left by a process that stopped
// before folding them) and every few seconds (rows another instance queued and could not
// fold). The runs themselves, and the ones each ingest asks for, are db/ingest/summaries.ts.
import { requestSummaries } from "../ingest/summaries";
import type { WorkerDefinition } from "./worker";

const SWEEP_MS = 5_000;

export const summariser: WorkerDefinition = {
  name: "summariser",
  start() {
    const ask = () => void requestSummaries();
    ask();
    const timer = setInterval(ask, SWEEP_MS).unref();
    return {
      stop: async () => clearInterval(timer),
    };
  },
};
