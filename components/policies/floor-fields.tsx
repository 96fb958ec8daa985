/** The numbers of a floor: a stored policy, a draft being edited or a what-if candidate. */
export interface Floor {
  min_size_bytes: number;
  min_semantic_density: number;
  max_pass_number: number;
}

/**
 * The three numbers of a floor as form inputs under their wire names, shared by the policy
 * editor and the what-if form. `remount` makes each input take a new default when the value
 * passed in changes (the editor is prefilled from a what-if candidate without a reload).
 */
export function FloorFields({
  values,
  labels,
  remount = false,
}: {
  values: Floor;
  labels: { size: string; density: string; maxPass: string };
  remount?: boolean;
}) {
  const key = (field: keyof Floor) => (remount ? `${field}:${values[field]}` : field);
  return (
    <div className="form-grid">
      <label key={key("min_size_bytes")}>
        {labels.size}
        <input name="min_size_bytes" type="number" min={0} step={1} required defaultValue={values.min_size_bytes} />
      </label>
      <label key={key("min_semantic_density")}>
        {labels.density}
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
      <label key={key("max_pass_number")}>
        {labels.maxPass}
        <input name="max_pass_number" type="number" min={0} step={1} required defaultValue={values.max_pass_number} />
      </label>
    </div>
  );
}

/** A labelled select of plain values, each shown as itself: the content format and its decoded format. */
export function ValueSelect({
  label,
  name,
  values,
  defaultValue,
  testId,
}: {
  label: React.ReactNode;
  name: string;
  values: readonly string[];
  defaultValue: string;
  testId?: string;
}) {
  return (
    <label>
      {label}
      <select name={name} defaultValue={defaultValue} data-testid={testId}>
        {values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Said where a viewer sees a form only an admin may submit. */
export function ViewerNote({ testId }: { testId: string }) {
  return (
    <p className="note" data-testid={testId}>
      Only an admin can change a floor; you are signed in as a viewer.
    </p>
  );
}
