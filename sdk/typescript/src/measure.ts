// The measurement a chain uses for density when the agent claims none.
import type { Measured } from "./chain";
import type { Policy } from "./receipt";

export type MeasureFn = (content: string, options: { source: string; policy: Policy }) => Measured | null;

export function measureWith(
  custom: MeasureFn | undefined,
): (content: string, source: string, policy: Policy) => Measured | null {
  if (custom) return (content, source, policy) => custom(content, { source, policy });
  return () => null;
}
