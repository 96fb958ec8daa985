// What an ingest changed that someone may want to hear about: a chain that collapsed (went
// past a floor) or that the guard saved, new integrity findings, receipts whose client
// disagreed. The chains' snapshots (db/ingest/rollups.ts) are taken inside the transaction
// that writes the summaries (the summariser's, the boundary ingest's), which holds the
// summaries' writers' lock, so "before" and "after" are exact, and the events are recorded in
// the outbox in that same transaction. Longer than most modules on purpose: every event type
// is judged from the same before and after snapshots, and the rules read as one list.
import "server-only";
import { sql } from "drizzle-orm";
import { col, queryRows, type RowOf } from "../sql";
import type { Executor } from "../types";
import { type ChainSnapshot, snapshotHas } from "../ingest/rollups";
import { recordEvents, type OutboxEvent } from "./webhooks";
import { type ChainLink, findIntegrityIssues, integrityContext, type IntegrityKind } from "@/lib/chains/integrity";
import { COLLAPSE_REASONS, type WebhookEventType } from "@/lib/webhooks/payload";
import { BOUNDARY_STRATEGIES, type BoundaryStrategy } from "@/lib/schemas/boundaries";
import { VERDICTS, type Verdict } from "@/lib/guard/guard";

/** A receipt this ingest inserted, with the server's verdict. */
export const INSERTED_PASS_ROW = {
  chain_id: col.text,
  pass_id: col.text,
  pass_number: col.int,
  input_content_hash: col.text.nullable(),
  current_content_hash: col.text,
  content_class: col.text,
  verdict: col.oneOf(VERDICTS),
  directive: col.text,
  manifest_digest: col.text,
  client_mismatch: col.bool,
  client_verdict: col.text.nullable(),
  client_manifest_digest: col.text.nullable(),
};
export type InsertedPass = RowOf<typeof INSERTED_PASS_ROW>;

/** What a write did to chains' outcomes, once per chain (as the outbox took the events), for the metrics. */
export interface OutcomeEffects {
  /** Chains that collapsed, with the verdict at their collapse point (their last pass's when they never reached a floor). */
  collapses: { content_class: string; verdict: Verdict }[];
  /** Chains the guard saved, with the strategy of the boundary that answered the floor. */
  guards: { content_class: string; strategy: BoundaryStrategy }[];
}

export interface IngestEffects extends OutcomeEffects {
  /** Content classes of the chains this ingest started. */
  started: string[];
  integrityKinds: IntegrityKind[];
}

const dedupe = (type: WebhookEventType, ...parts: (string | number)[]) => JSON.stringify([type, ...parts]);

/**
 * Records the outbox events of one fold of stored passes. `before` is the chains' snapshots
 * before the fold, `after` those of every chain the fold changed in a way seen here: new, or
 * its collapse point or integrity count moved (and a few more, see `noted` in
 * chain-summary.ts); `inserted` the folded passes in the order the ingest stored them: at
 * least those of the chains in `after` and those whose client disagreed (no other is read). A chain
 * collapses once (its collapse point going from none to some pass); a finding or a mismatch is announced once (dedupe keys),
 * however often the same receipts are sent.
 */
export async function recordPassEvents(
  tx: Executor,
  before: ReadonlyMap<string, ChainSnapshot>,
  after: ReadonlyMap<string, ChainSnapshot>,
  inserted: readonly InsertedPass[],
): Promise<IngestEffects> {
  if (inserted.length === 0) return { started: [], collapses: [], guards: [], integrityKinds: [] };
  // The lowest pass number each chain received, to tell appends from late passes.
  const lowest = new Map<string, number>();
  for (const p of inserted) {
    const low = lowest.get(p.chain_id);
    if (low === undefined || p.pass_number < low) lowest.set(p.chain_id, p.pass_number);
  }

  const events: OutboxEvent[] = await outcomeEvents(tx, before, after);
  const grown = new Set<string>();
  const started: string[] = [];
  for (const [chainId, low] of lowest) {
    // Left out by the fold when nothing read here moved: not new, no status change, no findings to judge.
    const c = after.get(chainId);
    if (!c) continue;
    const was = before.get(chainId);
    if (!was) started.push(c.content_class);
    // Judged again: a chain whose count grew, and a chain with findings that got a pass
    // before its end (a late pass can swap one finding for another without the count moving).
    const late = was?.last_pass_number != null && low <= was.last_pass_number;
    if (c.integrity_count > (was?.integrity_count ?? 0) || (c.integrity_count > 0 && late)) grown.add(chainId);
  }

  if (grown.size > 0) {
    // A chain whose new passes all come after its stored ones (how agents report) is judged
    // over its stored last pass and the new passes, which this ingest already holds; any
    // other chain over the stretch it touched, read back.
    const appended = new Map<string, { last: string | null; links: ChainLink[] }>();
    const touched: { chain_id: string; pass_number: number }[] = [];
    for (const chainId of grown) {
      const was = before.get(chainId);
      const lastNumber = was?.last_pass_number ?? null;
      if (lastNumber === null || (lowest.get(chainId) as number) > lastNumber) {
        appended.set(chainId, { last: lastNumber === null ? null : (was?.last_pass_id ?? null), links: [] });
      }
    }
    for (const p of inserted) {
      const a = appended.get(p.chain_id);
      if (a) a.links.push(p);
      else if (grown.has(p.chain_id)) touched.push({ chain_id: p.chain_id, pass_number: p.pass_number });
    }
    events.push(...(await integrityFindingEvents(tx, grown, touched, appended, after)));
  }

  for (const p of inserted) {
    if (!p.client_mismatch) continue;
    events.push({
      type: "pass.client_mismatch",
      dedupeKey: dedupe("pass.client_mismatch", p.chain_id, p.pass_id),
      data: {
        chain_id: p.chain_id,
        content_class: p.content_class,
        pass_id: p.pass_id,
        pass_number: p.pass_number,
        verdict: p.verdict,
        directive: p.directive,
        manifest_digest: p.manifest_digest,
        client_verdict: p.client_verdict,
        client_manifest_digest: p.client_manifest_digest,
      },
    });
  }

  const { recorded } = await recordEvents(tx, events);
  return { started, ...outcomeEffects(events, recorded), integrityKinds: findingKinds(recorded) };
}

const FLOOR_VERDICTS = sql.raw(`('FLOOR_BREACH_DETECTED', 'COLLAPSE_IMMINENT')`);

/**
 * The `chain.collapsed` and `chain.guarded` events of the chains whose outcome a write changed
 * (db/schema/chains.ts `chainOutcome`, in the snapshots' statuses): once per chain each. An
 * agent that reports as the SDKs do sends a floor pass's boundary before its next pass, so a
 * chain it guards is never collapsed on the way; a chain can still be guarded and later
 * collapse (a pass after its halt), or, when a boundary comes after the passes it answers,
 * collapse and then be guarded: each is announced as it happens.
 */
async function outcomeEvents(
  tx: Executor,
  before: ReadonlyMap<string, ChainSnapshot>,
  after: ReadonlyMap<string, ChainSnapshot>,
): Promise<OutboxEvent[]> {
  const became = (status: "collapsed" | "guarded") =>
    [...after.values()].filter((c) => {
      const was = before.get(c.chain_id);
      return snapshotHas(c, status) && !(was && snapshotHas(was, status));
    });
  const collapsed = became("collapsed");
  const guarded = became("guarded");
  if (collapsed.length === 0 && guarded.length === 0) return [];
  const ids = JSON.stringify([...new Set([...collapsed, ...guarded].map((c) => c.chain_id))]);
  const rows = await queryRows(
    tx,
    sql`
      select c.chain_id, c.content_class,
        p.pass_id, p.pass_number, p.effective_verdict as verdict, p.directive,
        c.continued_after_halt_count > 0 as continued_after_halt,
        c.restore_not_honoured_count > 0 as restore_not_honoured,
        coalesce(c.unanswered_floor_pass_number < c.last_pass_number, false) as floor_passed_without_boundary,
        g.strategy, g.pass_id as guard_pass_id, g.pass_number as guard_pass_number, g.verdict as guard_verdict,
        g.directive as guard_directive
      from chains c
      -- The collapse point, or the last pass of a chain that collapsed without reaching a floor.
      left join passes p on p.chain_id = c.chain_id and p.pass_id = coalesce(c.collapse_pass_id, c.last_pass_id)
      -- The first floor pass a boundary answers, and the boundary's strategy.
      left join lateral (
        select b.strategy, fp.pass_id, fp.pass_number, fp.effective_verdict as verdict, fp.directive
        from passes fp join boundaries b on b.chain_id = fp.chain_id and b.pass_number = fp.pass_number
        where fp.chain_id = c.chain_id and fp.effective_verdict in ${FLOOR_VERDICTS}
        order by fp.pass_number, fp.id
        limit 1
      ) as g on true
      where c.chain_id in (select json_array_elements_text(${ids}::json))`,
    {
      chain_id: col.text,
      content_class: col.text,
      pass_id: col.text.nullable(),
      pass_number: col.int.nullable(),
      verdict: col.oneOf(VERDICTS).nullable(),
      directive: col.text.nullable(),
      continued_after_halt: col.bool,
      restore_not_honoured: col.bool,
      floor_passed_without_boundary: col.bool,
      strategy: col.oneOf(BOUNDARY_STRATEGIES).nullable(),
      guard_pass_id: col.text.nullable(),
      guard_pass_number: col.int.nullable(),
      guard_verdict: col.oneOf(VERDICTS).nullable(),
      guard_directive: col.text.nullable(),
    },
  );
  const byId = new Map(rows.map((r) => [r.chain_id, r]));
  const events: OutboxEvent[] = [];
  for (const c of collapsed) {
    const r = byId.get(c.chain_id);
    if (!r || r.pass_id === null || r.pass_number === null || r.verdict === null) continue;
    events.push({
      type: "chain.collapsed",
      dedupeKey: dedupe("chain.collapsed", c.chain_id),
      data: {
        chain_id: r.chain_id,
        content_class: r.content_class,
        pass_id: r.pass_id,
        pass_number: r.pass_number,
        verdict: r.verdict,
        directive: r.directive ?? "",
        reasons: COLLAPSE_REASONS.filter((reason) => r[reason]),
      },
    });
  }
  for (const c of guarded) {
    const r = byId.get(c.chain_id);
    if (
      !r ||
      r.strategy === null ||
      r.guard_pass_id === null ||
      r.guard_pass_number === null ||
      r.guard_verdict === null
    )
      continue;
    events.push({
      type: "chain.guarded",
      dedupeKey: dedupe("chain.guarded", c.chain_id),
      data: {
        chain_id: r.chain_id,
        content_class: r.content_class,
        pass_id: r.guard_pass_id,
        pass_number: r.guard_pass_number,
        verdict: r.guard_verdict,
        directive: r.guard_directive ?? "",
        strategy: r.strategy,
      },
    });
  }
  return events;
}

/** Of the outcome events a write made, those the outbox took (each chain's first of its kind), as metrics count them. */
function outcomeEffects(
  events: readonly OutboxEvent[],
  recorded: readonly { type: string; dedupe_key: string | null }[],
): OutcomeEffects {
  const taken = new Set(recorded.map((r) => r.dedupe_key));
  const effects: OutcomeEffects = { collapses: [], guards: [] };
  for (const e of events) {
    if (!taken.has(e.dedupeKey ?? null)) continue;
    if (e.type === "chain.collapsed")
      effects.collapses.push({ content_class: e.data.content_class, verdict: e.data.verdict });
    if (e.type === "chain.guarded")
      effects.guards.push({ content_class: e.data.content_class, strategy: e.data.strategy });
  }
  return effects;
}

/**
 * The integrity findings of the stretches an ingest touched, as outbox events, for the
 * `grown` chains. `touched` are pass numbers of some of them (their passes, or the pass a
 * boundary sits on): each such stretch runs from the stored pass before to the stored pass
 * after, whose findings the write can change, and is read back. `appended` are the others,
 * whose new passes (in insert order) all come after the stored pass `last`: their stretch is
 * that pass and the new ones.
 */
async function integrityFindingEvents(
  tx: Executor,
  grown: ReadonlySet<string>,
  touched: readonly { chain_id: string; pass_number: number }[],
  appended: ReadonlyMap<string, { last: string | null; links: readonly ChainLink[] }>,
  after: ReadonlyMap<string, ChainSnapshot>,
): Promise<OutboxEvent[]> {
  const events: OutboxEvent[] = [];
  const lasts = [...appended].flatMap(([chain_id, a]) => (a.last === null ? [] : [{ chain_id, pass_id: a.last }]));
  // Findings are derived, not stored: for the chains with any, recompute them over
  // the stretch this ingest touched (its passes, the pass before them and the pass after,
  // whose findings the new passes can change), and let the dedupe keys keep only the ones
  // never announced. A chain that only grows at its end costs its new passes, not its length.
  const links =
    touched.length === 0 && lasts.length === 0
      ? []
      : await queryRows(
          tx,
          sql`
      with w as (
        select chain_id, min(pass_number) as lo, max(pass_number) as hi
        from json_to_recordset(${JSON.stringify(touched)}::json) as n(chain_id text, pass_number bigint)
        group by chain_id
      ),
      -- Materialized: inlined, the two look-ups below ran again for every pass the join
      -- read (seconds once chains are long), not once per chain.
      b as materialized (
        select w.chain_id, w.lo, w.hi,
          (select max(p.pass_number) from passes p where p.chain_id = w.chain_id and p.pass_number < w.lo) as prev_number,
          (select min(p.pass_number) from passes p where p.chain_id = w.chain_id and p.pass_number > w.hi) as next_number
        from w
      )
      select p.chain_id, p.pass_id, p.pass_number, p.input_content_hash, p.current_content_hash, b.prev_number, p.id
      from b join passes p on p.chain_id = b.chain_id
        and p.pass_number between coalesce(b.prev_number, b.lo) and coalesce(b.next_number, b.hi)
      union all
      select p.chain_id, p.pass_id, p.pass_number, p.input_content_hash, p.current_content_hash, p.pass_number, p.id
      from json_to_recordset(${JSON.stringify(lasts)}::json) as k(chain_id text, pass_id text)
      join passes p on p.chain_id = k.chain_id and p.pass_id = k.pass_id
      order by chain_id, pass_number, id`,
          {
            chain_id: col.text,
            pass_id: col.text,
            pass_number: col.int,
            input_content_hash: col.text.nullable(),
            current_content_hash: col.text,
            prev_number: col.int.nullable(),
            id: col.int,
          },
        );
  // What the directive kinds judge against: the halt point (on the summary) and the chain's
  // halt and restore boundaries with the passes they restore (lib/chains/integrity.ts).
  const bounded = [...grown].filter((id) => (after.get(id)?.boundary_count ?? 0) > 0);
  const marks =
    bounded.length === 0
      ? []
      : await queryRows(
          tx,
          sql`
      select b.chain_id, b.pass_number, b.strategy, b.restore_pass_id, k.pass_number as restored_number,
        k.current_content_hash as restored_hash
      from boundaries b
      left join passes k on k.chain_id = b.chain_id and k.pass_id = b.restore_pass_id
      where b.strategy in ('halt', 'restore')
        and b.chain_id in (select json_array_elements_text(${JSON.stringify(bounded)}::json))`,
          {
            chain_id: col.text,
            pass_number: col.int,
            strategy: col.oneOf(["halt", "restore"]),
            restore_pass_id: col.text.nullable(),
            restored_number: col.int.nullable(),
            restored_hash: col.text.nullable(),
          },
        );
  const contextOf = (chainId: string) => {
    const own = marks.filter((m) => m.chain_id === chainId);
    const haltAt = after.get(chainId)?.halt_pass_number ?? null;
    return integrityContext(
      haltAt === null ? [] : [{ pass_number: haltAt, directive: "HALT" }],
      own.map((m) => ({ pass_number: m.pass_number, strategy: m.strategy, restore_pass_id: m.restore_pass_id })),
      own.flatMap((m) =>
        m.restore_pass_id !== null && m.restored_hash !== null && m.restored_number !== null
          ? [{ pass_id: m.restore_pass_id, pass_number: m.restored_number, current_content_hash: m.restored_hash }]
          : [],
      ),
    );
  };
  // Each chain's stretch in chain order (pass number, then arrival), and the number of the
  // stored pass before it, which is judged without its own predecessor: its findings are old.
  const stretches = new Map<string, { prevNumber: number | null; links: ChainLink[] }>();
  for (const l of links) {
    const link = {
      pass_id: l.pass_id,
      pass_number: l.pass_number,
      input_content_hash: l.input_content_hash,
      current_content_hash: l.current_content_hash,
    };
    const s = stretches.get(l.chain_id);
    if (s) s.links.push(link);
    else stretches.set(l.chain_id, { prevNumber: l.prev_number, links: [link] });
  }
  for (const [chainId, a] of appended) {
    // Stable: passes of one number stay in insert order, which is their id order.
    const fresh = [...a.links].sort((x, y) => x.pass_number - y.pass_number);
    const s = stretches.get(chainId);
    if (s) s.links.push(...fresh);
    else stretches.set(chainId, { prevNumber: null, links: fresh });
  }
  for (const [chainId, { prevNumber, links: chainLinks }] of stretches) {
    const findings = findIntegrityIssues(chainLinks, contextOf(chainId));
    const contentClass = after.get(chainId)?.content_class ?? "default";
    for (const f of findings) {
      if (f.pass_number === prevNumber) continue;
      events.push({
        type: "chain.integrity_finding",
        dedupeKey: dedupe("chain.integrity_finding", chainId, f.kind, f.pass_id, f.pass_number),
        data: { chain_id: chainId, content_class: contentClass, ...f },
      });
    }
  }
  return events;
}

/**
 * Records the outbox events of one boundary ingest: a boundary that answers a floor pass can
 * make its chain guarded, and a halt or restore boundary that arrives after the passes it
 * judges can create a finding (`continued_after_halt`, `restore_not_honoured`) on the pass
 * after it, and so a collapse. `before` as for `recordPassEvents`; `after` the snapshots of
 * the chains that got a boundary.
 */
export async function recordBoundaryEvents(
  tx: Executor,
  before: ReadonlyMap<string, ChainSnapshot>,
  after: ReadonlyMap<string, ChainSnapshot>,
  inserted: readonly { chain_id: string; pass_number: number; strategy: string }[],
): Promise<OutcomeEffects & { integrityKinds: IntegrityKind[] }> {
  const events = await outcomeEvents(tx, before, after);
  const judging = inserted.filter((b) => b.strategy === "halt" || b.strategy === "restore");
  const grown = new Set(
    [...new Set(judging.map((b) => b.chain_id))].filter(
      (id) => (after.get(id)?.integrity_count ?? 0) > (before.get(id)?.integrity_count ?? 0),
    ),
  );
  if (grown.size > 0) {
    events.push(
      ...(await integrityFindingEvents(
        tx,
        grown,
        judging.filter((b) => grown.has(b.chain_id)).map((b) => ({ chain_id: b.chain_id, pass_number: b.pass_number })),
        new Map(),
        after,
      )),
    );
  }
  const { recorded } = await recordEvents(tx, events);
  return { ...outcomeEffects(events, recorded), integrityKinds: findingKinds(recorded) };
}

/** The kinds of the integrity findings the outbox took (its dedupe key names the kind). */
function findingKinds(recorded: readonly { type: string; dedupe_key: string | null }[]): IntegrityKind[] {
  return recorded
    .filter((r) => r.type === "chain.integrity_finding")
    .map((r) => JSON.parse(r.dedupe_key ?? "[]")[2] as IntegrityKind);
}
