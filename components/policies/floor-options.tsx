// The recommended floors of a class as cards beside the floor in force: what each would have
// caught, missed and halted on the recorded chains, openable in the what-if and savable.
import { formatBytes } from "@/lib/format";
import type { CompressionPolicy } from "@/lib/guard/guard";
import type { Outcome } from "@/lib/recommend/profile";
import type { OptionName } from "@/lib/recommend/search";
import type { PreviewFloor } from "@/lib/recommend/wire";
import { policiesHref } from "@/lib/routes";
import { type FloorInForce, SaveFloorButton } from "./floor-change";

export type FloorOptionsData =
  | {
      kind: "ok";
      based_on: { chains: number; healthy: number; guarded: number; failures: number; passes: number };
      current: Outcome;
      options: (Outcome & { name: OptionName; policy: CompressionPolicy })[];
    }
  | { kind: "not_enough_data"; chains: number; minimum: number };

const TITLE: Record<OptionName, string> = { strict: "Strict", balanced: "Balanced", lenient: "Lenient" };

const RULE: Record<OptionName, string> = {
  strict: "Catches every failure a floor can catch, halting the fewest healthy chains to do it.",
  balanced: "Most failures caught minus healthy chains halted early.",
  lenient: "Halts no healthy chain early; catches what it can under that.",
};

const percent = (x: number) => `${(x * 100).toFixed(1)}%`;

export function FloorOptions({
  data,
  inForce,
  canEdit,
  preview,
}: {
  data: FloorOptionsData;
  inForce: FloorInForce;
  canEdit: boolean;
  preview: PreviewFloor;
}) {
  if (data.kind === "not_enough_data") {
    return (
      <p className="muted" data-testid="floor-options-not-enough" role="note">
        Not enough data to recommend a floor: {inForce.content_class} has {data.chains} recorded chain
        {data.chains === 1 ? "" : "s"}, and a recommendation needs at least {data.minimum}. With fewer, one odd chain
        decides the answer. Send more receipts of this class, or tune it with the what-if below.
      </p>
    );
  }
  const current: CompressionPolicy = {
    min_size_bytes: inForce.min_size_bytes,
    min_semantic_density: inForce.min_semantic_density,
    max_pass_number: inForce.max_pass_number,
  };
  const { based_on: on } = data;
  return (
    <>
      <p className="muted small">
        From {on.chains} recorded chains ({on.passes} passes): {on.failures} failed (a broken pass, or a restore or
        accept-loss boundary, that the guard did not save), {on.guarded} guarded (the guard stopped them at a floor and
        the agent obeyed: saves, counted with the healthy ones), {on.healthy} healthy. A floor catches a failure when
        the guard would have halted the chain at an earlier pass.
      </p>
      <div className="floor-options" data-testid="floor-options">
        <OptionCard title={`In force (${inForce.version === 0 ? "default" : `v${inForce.version}`})`} policy={current}>
          <OutcomeList outcome={data.current} />
        </OptionCard>
        {data.options.map((o) => (
          <OptionCard key={o.name} title={TITLE[o.name]} policy={o.policy} current={current} name={o.name}>
            <p className="muted small-text">{RULE[o.name]}</p>
            <OutcomeList outcome={o} />
            <div className="card-actions">
              <a
                href={`${policiesHref({ class: inForce.content_class, ...o.policy })}#what-if`}
                data-testid={`option-what-if-${o.name}`}
              >
                Open in what-if
              </a>
              <SaveFloorButton
                inForce={inForce}
                proposed={{
                  ...o.policy,
                  required_fields: inForce.required_fields,
                  description: inForce.description,
                  format: inForce.format,
                  decoded_format: inForce.decoded_format,
                }}
                source={`the ${o.name} recommendation`}
                label={`Save as v${inForce.version + 1}…`}
                canEdit={canEdit}
                preview={preview}
                testId={`option-save-${o.name}`}
              />
            </div>
          </OptionCard>
        ))}
      </div>
    </>
  );
}

function OptionCard({
  title,
  policy,
  current,
  name,
  children,
}: {
  title: string;
  policy: CompressionPolicy;
  current?: CompressionPolicy;
  name?: string;
  children: React.ReactNode;
}) {
  const mark = (key: keyof CompressionPolicy) => (current && current[key] !== policy[key] ? "changed" : undefined);
  return (
    <section className="panel floor-option" data-testid={`floor-option-${name ?? "current"}`} aria-label={title}>
      <h4>{title}</h4>
      <dl className="floor-values">
        <dt>size ≥</dt>
        <dd className={mark("min_size_bytes")} title={`${policy.min_size_bytes} bytes`}>
          {formatBytes(policy.min_size_bytes)}
        </dd>
        <dt>density ≥</dt>
        <dd className={mark("min_semantic_density")}>{policy.min_semantic_density}</dd>
        <dt>pass ≤</dt>
        <dd className={mark("max_pass_number")}>{policy.max_pass_number}</dd>
      </dl>
      {children}
    </section>
  );
}

function OutcomeList({ outcome }: { outcome: Outcome }) {
  return (
    <dl className="floor-outcome">
      <dt>caught</dt>
      <dd data-testid="outcome-caught">{outcome.failures_caught}</dd>
      <dt>missed</dt>
      <dd data-testid="outcome-missed">{outcome.failures_missed}</dd>
      <dt>healthy halted early</dt>
      <dd data-testid="outcome-halted">{outcome.healthy_halted_early}</dd>
      <dt>compression kept</dt>
      <dd data-testid="outcome-kept">{percent(outcome.compression_kept)}</dd>
    </dl>
  );
}
