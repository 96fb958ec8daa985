// How many OTLP exports are decoded and stored at once: in the whole process, and per caller
// (API key or operator session), so that one exporter cannot take every place. An export can
// carry thousands of receipts; past either limit the server answers 429 with Retry-After,
// which every OTLP exporter honours by retrying later, instead of queueing work it cannot
// finish soon. A place is taken only once the body has arrived: an upload, however slow,
// holds none (its bytes count against the body budget of lib/http/body.ts instead), so slow
// uploads cannot refuse everyone else.
import type { Principal } from "../auth/access";
import { env, type EnvSource } from "../env";
import { callerOf, type Slot, SlotCounter, type SlotLimits, type SlotRefusal } from "../http/slots";
import { processSingleton } from "../process-singleton";

export const RETRY_AFTER_SECONDS = 1;

/** The process's places, one counter whichever bundle of the route runs. */
export const exportSlots = (): SlotCounter => processSingleton("otlpExportSlots", () => new SlotCounter());

export function exportLimits(source?: EnvSource): SlotLimits {
  return {
    global: env("FLOORLINE_MAX_OTLP_EXPORTS", source) ?? 4,
    perCaller: env("FLOORLINE_MAX_OTLP_EXPORTS_PER_CALLER", source) ?? 2,
  };
}

/** A place for `principal`'s export, or which limit refused it. */
export function takeExportSlot(principal: Principal): Slot | SlotRefusal {
  return exportSlots().take(callerOf(principal), exportLimits());
}
