// @floorline/sdk: the agent side of Floorline.
export { Chain, type ChainOptions } from "./chain";
export type { Strategy } from "./args";
export {
  type BoundaryReceipt,
  type BreachContext,
  type Compressed,
  type CompressOptions,
  type CompressOutcome,
  defaultStrategy,
  type Measured,
  type PassResult,
  type PlantOptions,
  type RecordOptions,
} from "./results";
export { type CloseOptions, DEFAULTS, Floorline, type FloorlineOptions, type Original } from "./client";
export type { DeliveryCounters, DeliveryStats } from "./delivery";
export { FloorlineError, type Issue, type Transport } from "./http";
export { type DeliveryReport, type Item, type ItemKind, ReceiptsLostError } from "./report";
export type { MeasureFn } from "./measure";
export type { PassReceipt, Policy } from "./receipt";
export { formatMarker, markerKey } from "../../../lib/originals/marker";
export {
  type Canary,
  type CanaryCheck,
  type CanaryKind,
  checkCanaries,
  MAX_CANARIES,
  type PlantFormat,
  plantCanaries,
} from "../../../lib/canaries/canaries";
export {
  type CompressionManifest,
  type CompressionPass,
  type CompressionPolicy,
  evaluatePass,
  type Verdict,
  VERDICTS,
} from "../../../lib/guard/guard";
export { CONSERVATIVE_DEFAULT_POLICY } from "../../../lib/guard/policy";
export {
  type FactCounts,
  type MeasureFormat,
  type MeasureOptions,
  type Measurement,
  measure,
  METHOD as MEASURE_METHOD,
} from "../../../lib/measure/index";
export {
  type BindingConclusion,
  type CompressedResidual,
  compressTrace,
  MissingVerificationReceiptError,
  type ReasoningNode,
} from "../../../lib/traces/trace";
