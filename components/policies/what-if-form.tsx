import type { CompressionPolicy } from "@/lib/guard/guard";
import { FloorFields } from "./floor-fields";

/**
 * A plain GET form: the candidate floor goes into the URL, so a what-if is a link that can
 * be shared, and running one writes nothing.
 */
export function WhatIfForm({
  contentClass,
  values,
  chain,
}: {
  contentClass: string;
  values: CompressionPolicy;
  chain?: string;
}) {
  return (
    <form method="get" action="/policies" className="what-if-form" data-testid="what-if-form">
      <input type="hidden" name="class" value={contentClass} />
      {chain ? <input type="hidden" name="chain" value={chain} /> : null}
      <FloorFields
        values={values}
        labels={{ size: "Candidate min size (bytes)", density: "Candidate min density", maxPass: "Candidate max pass" }}
      />
      <div className="form-actions">
        <button type="submit" className="primary">
          Replay chains under this floor
        </button>
        <span className="muted">Reads recorded passes only; nothing is saved.</span>
      </div>
    </form>
  );
}
