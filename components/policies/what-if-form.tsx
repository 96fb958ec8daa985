import type { CompressionPolicy } from "@/lib/guard/guard";

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
      <div className="form-grid">
        <label>
          Candidate min size (bytes)
          <input name="min_size_bytes" type="number" min={0} step={1} required defaultValue={values.min_size_bytes} />
        </label>
        <label>
          Candidate min density
          <input
            name="min_semantic_density"
            type="number"
            min={0}
            max={1}
            step="any"
            required
            defaultValue={values.min_semantic_density}
          />
        </label>
        <label>
          Candidate max pass
          <input name="max_pass_number" type="number" min={0} step={1} required defaultValue={values.max_pass_number} />
        </label>
      </div>
      <div className="form-actions">
        <button type="submit" className="primary">
          Replay chains under this floor
        </button>
        <span className="muted">Reads recorded passes only; nothing is saved.</span>
      </div>
    </form>
  );
}
