import type { OriginalStatsWire, OriginalTotalsWire } from "@/lib/schemas/originals";
import { formatBytes, formatCount, formatPercent, formatSigned, formatUtcHour } from "@/lib/format";
import { ScrollTable } from "@/components/ui/scroll-box";

function Stat({ id, label, value, detail }: { id: string; label: string; value: string; detail?: React.ReactNode }) {
  return (
    <div className="ccr-stat" data-testid={`stat-${id}`}>
      <div className="ccr-stat-label">{label}</div>
      <div className="ccr-stat-value">{value}</div>
      {detail ? <div className="ccr-stat-detail">{detail}</div> : null}
    </div>
  );
}

function hasActivity(t: OriginalTotalsWire): boolean {
  return t.stored + t.deduplicated + t.retrieved + t.misses.total + t.evictions + t.expiries > 0;
}

/**
 * The store's counters: what it holds, what agents asked of it, what it lost, and what
 * compression really saved once retrievals are paid back.
 */
export function OriginalsCounters({ stats }: { stats: OriginalStatsWire }) {
  const { store, totals, config } = stats;
  const { misses, tokens } = totals;
  const hours = stats.hourly.filter(hasActivity).reverse();
  return (
    <section className="panel originals-counters" aria-label="Store counters" data-testid="originals-counters">
      <div className="ccr-stats">
        <Stat
          id="live"
          label="Live originals"
          value={formatCount(store.live_count)}
          detail={`${formatBytes(store.live_bytes)} of ${formatBytes(config.max_bytes)} budget (${formatPercent(store.budget_used)})`}
        />
        <Stat
          id="stored"
          label="Stored"
          value={formatCount(totals.stored)}
          detail={`${formatCount(totals.deduplicated)} deduplicated`}
        />
        <Stat
          id="retrieved"
          label="Retrieved"
          value={formatCount(totals.retrieved)}
          detail={`hit rate ${formatPercent(totals.hit_rate)}`}
        />
        <Stat
          id="misses"
          label="Misses"
          value={formatCount(misses.total)}
          detail={`unknown ${misses.unknown} · evicted ${misses.evicted} · expired ${misses.expired} · ambiguous ${misses.ambiguous}`}
        />
        <Stat
          id="evictions"
          label="Evictions"
          value={formatCount(totals.evictions)}
          detail={formatBytes(totals.evicted_bytes)}
        />
        <Stat
          id="expiries"
          label="Expiries"
          value={formatCount(totals.expiries)}
          detail={`default TTL ${config.default_ttl_seconds === null ? "none" : `${config.default_ttl_seconds} s`}`}
        />
        <Stat id="tokens-gross" label="Tokens saved (gross)" value={formatCount(tokens.saved_gross)} />
        <Stat
          id="tokens-respent"
          label="Re-spent by retrievals"
          value={formatCount(tokens.respent)}
          detail={tokens.respent_share === null ? undefined : `${formatPercent(tokens.respent_share)} of gross`}
        />
        <Stat id="tokens-net" label="Net tokens saved" value={formatSigned(tokens.net)} detail="gross minus re-spent" />
      </div>
      <details className="ccr-hourly" open={hours.length > 0}>
        <summary>Per hour, last {stats.hourly.length} hours (UTC)</summary>
        {hours.length === 0 ? (
          <p className="muted">No activity in this window.</p>
        ) : (
          <ScrollTable
            label="Per hour counters"
            testId="ccr-hourly"
            columns={[
              "Hour",
              "Stored",
              "Retrieved",
              "Misses (unknown / evicted / expired / ambiguous)",
              "Evictions",
              "Expiries",
              "Tokens gross",
              "Re-spent",
              "Net",
            ]}
            className="ccr-compact"
            panel={false}
          >
            {hours.map((h) => (
              <tr key={h.hour}>
                <td className="mono">{formatUtcHour(h.hour)}</td>
                <td>{formatCount(h.stored)}</td>
                <td>{formatCount(h.retrieved)}</td>
                <td>
                  {h.misses.total} ({h.misses.unknown} / {h.misses.evicted} / {h.misses.expired} / {h.misses.ambiguous})
                </td>
                <td>{formatCount(h.evictions)}</td>
                <td>{formatCount(h.expiries)}</td>
                <td>{formatCount(h.tokens.saved_gross)}</td>
                <td>{formatCount(h.tokens.respent)}</td>
                <td>{formatSigned(h.tokens.net)}</td>
              </tr>
            ))}
          </ScrollTable>
        )}
      </details>
    </section>
  );
}
