// The measurement a chain takes its density from when the agent claims none: the server's
// own (lib/measure), in the class's format and required fields, against the chain's source,
// with the originals this client cached standing behind the markers it wrote.
import { type Measurement, measure, type Originals } from "../../../lib/measure/index";
import type { Policy } from "./receipt";

export type MeasureFn = (
  content: string,
  options: { source: string | null; policy: Policy; originals: Originals },
) => Measurement;

export const measureShared: MeasureFn = (content, { source, policy, originals }) =>
  measure(content, {
    source,
    format: policy.format ?? "any",
    requiredFields: policy.required_fields ?? [],
    originals,
  });
