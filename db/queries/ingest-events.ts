import "server-only";
import { sql } from "drizzle-orm";
import { queryRows, type Executor } from "../index";
import { recordEvents, type OutboxEvent } from "./webhooks";
import { findIntegrityIssues, integrityContext, type IntegrityKind } from "@/lib/chains/integrity";
import type { WebhookEventType } from "@/lib/webhooks/payload";

// What an ingest changed that someone may want to hear about: a chain's collapse point
// set for the first time, new integrity findings, receipts whose client disagreed. Read
// inside the ingest's transaction (which holds the chains' locks), so "before" and "after"
// are exact, and recorded in the outbox in that same transaction.

export interface ChainState {
  collapsePassId: string | null;
  integrityCount: number;
  lastPassNumber: number | null;
}

export async function readChainStates(tx: Executor, chainIds: readonly string[]): Promise<Map<string, ChainState>> {
  if (chainIds.length === 0) return new Map();
  const rows = await queryRows<{
    chain_id: string;
    collapse_pass_id: string | null;
    integrity_count: unknown;
    last_pass_number: unknown;
  }>(
    tx,
    sql`select chain_id, collapse_pass_id, integrity_count, last_pass_number from chains
        where chain_id in (select json_array_elements_text(${JSON.stringify([...new Set(chainIds)])}::json))`,
  );
  return new Map(
    rows.map((r) => [
      r.chain_id,
      {
        collapsePassId: r.collapse_pass_id,
        integrityCount: Number(r.integrity_count),
        lastPassNumber: r.last_pass_number === null ? null : Number(r.last_pass_number),
      },
    ]),
  );
}

/** A receipt this ingest inserted, with the server's verdict. */
export interface InsertedPass {
  chain_id: string;
  pass_id: string;
  pass_number: number;
  content_class: string;
  verdict: string;
  directive: string;
  manifest_digest: string;
  client_mismatch: boolean;
  client_verdict: string | null;
  client_manifest_digest: string | null;
}

export interface IngestEffects {
  /** Content classes of the chains this ingest started. */
  started: string[];
  collapses: { content_class: string; verdict: string }[];
  integrityKinds: IntegrityKind[];
}

const dedupe = (type: WebhookEventType, ...parts: (string | number)[]) => JSON.stringify([type, ...parts]);

/**
 * Records the outbox events of one pass ingest. `before` is the chains' state read after
 * their locks were taken and before the insert. A chain collapses once (its collapse point
 * going from none to some pass); a finding or a mismatch is announced once (dedupe keys),
 * however often the same receipts are sent.
 */
export async function recordPassEvents(
  tx: Executor,
  before: Map<string, ChainState>,
  inserted: readonly InsertedPass[],
): Promise<IngestEffects> {
  if (inserted.length === 0) return { started: [], collapses: [], integrityKinds: [] };
  const chainIds = [...new Set(inserted.map((p) => p.chain_id))];
  const after = await queryRows<{
    chain_id: string;
    content_class: string;
    collapse_pass_id: string | null;
    collapse_pass_number: unknown;
    collapse_verdict: string | null;
    integrity_count: unknown;
    halt_pass_number: unknown;
  }>(
    tx,
    sql`select chain_id, content_class, collapse_pass_id, collapse_pass_number, collapse_verdict, integrity_count,
          halt_pass_number
        from chains where chain_id in (select json_array_elements_text(${JSON.stringify(chainIds)}::json))`,
  );
  const directiveOf = new Map(inserted.map((p) => [`${p.chain_id}\u0000${p.pass_id}`, p.directive]));
  // The lowest pass number each chain received, to tell appends from late passes.
  const lowest = new Map<string, number>();
  for (const p of inserted) lowest.set(p.chain_id, Math.min(p.pass_number, lowest.get(p.chain_id) ?? Infinity));

  const events: OutboxEvent[] = [];
  const collapses: IngestEffects["collapses"] = [];
  const grew: string[] = [];
  const started: string[] = [];
  const classOf = new Map(after.map((c) => [c.chain_id, c.content_class]));
  for (const c of after) {
    const was = before.get(c.chain_id);
    if (!was) started.push(c.content_class);
    if (c.collapse_pass_id !== null && c.collapse_verdict !== null && (was?.collapsePassId ?? null) === null) {
      collapses.push({ content_class: c.content_class, verdict: c.collapse_verdict });
      events.push({
        type: "chain.collapsed",
        dedupeKey: dedupe("chain.collapsed", c.chain_id),
        data: {
          chain_id: c.chain_id,
          content_class: c.content_class,
          pass_id: c.collapse_pass_id,
          pass_number: Number(c.collapse_pass_number),
          verdict: c.collapse_verdict,
          // Every stored pass had a safe verdict before (no collapse point), so the collapse
          // pass is one of this ingest's.
          directive: directiveOf.get(`${c.chain_id}\u0000${c.collapse_pass_id}`) ?? "",
        },
      });
    }
    // Judged again: a chain whose count grew, and a chain with findings that got a pass
    // before its end (a late pass can swap one finding for another without the count moving).
    const count = Number(c.integrity_count);
    const late = was?.lastPassNumber != null && (lowest.get(c.chain_id) ?? Infinity) <= was.lastPassNumber;
    if (count > (was?.integrityCount ?? 0) || (count > 0 && late)) grew.push(c.chain_id);
  }

  if (grew.length > 0) {
    const grown = new Set(grew);
    const touched = inserted
      .filter((p) => grown.has(p.chain_id))
      .map((p) => ({ chain_id: p.chain_id, pass_number: p.pass_number }));
    const haltOf = new Map(after.map((c) => [c.chain_id, c.halt_pass_number]));
    events.push(...(await integrityFindingEvents(tx, grown, touched, haltOf, classOf)));
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
  return { started, collapses, integrityKinds: findingKinds(recorded) };
}

/**
 * The integrity findings of the stretches an ingest touched, as outbox events: `touched` are
 * pass numbers of the `grown` chains (their passes, or the pass a boundary sits on); each
 * stretch runs from the pass before to the pass after, whose findings the write can change.
 */
async function integrityFindingEvents(
  tx: Executor,
  grown: ReadonlySet<string>,
  touched: readonly { chain_id: string; pass_number: number }[],
  haltOf: ReadonlyMap<string, unknown>,
  classOf: ReadonlyMap<string, string>,
): Promise<OutboxEvent[]> {
  const events: OutboxEvent[] = [];
  // Findings are derived, not stored: for the chains with any, recompute them over
  // the stretch this ingest touched (its passes, the pass before them and the pass after,
  // whose findings the new passes can change), and let the dedupe keys keep only the ones
  // never announced. A chain that only grows at its end costs its new passes, not its length.
  const links = await queryRows<{
    chain_id: string;
    pass_id: string;
    pass_number: unknown;
    input_content_hash: string | null;
    current_content_hash: string;
    prev_number: unknown;
  }>(
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
      select p.chain_id, p.pass_id, p.pass_number, p.input_content_hash, p.current_content_hash, b.prev_number
      from b join passes p on p.chain_id = b.chain_id
        and p.pass_number between coalesce(b.prev_number, b.lo) and coalesce(b.next_number, b.hi)
      order by p.chain_id, p.pass_number, p.id`,
  );
  // What the directive kinds judge against: the halt point (on the summary) and the chain's
  // halt and restore boundaries with the passes they restore (lib/chains/integrity.ts).
  const marks = await queryRows<{
    chain_id: string;
    pass_number: unknown;
    strategy: "halt" | "restore";
    restore_pass_id: string | null;
    restored_number: unknown;
    restored_hash: string | null;
  }>(
    tx,
    sql`
      select b.chain_id, b.pass_number, b.strategy, b.restore_pass_id, k.pass_number as restored_number,
        k.current_content_hash as restored_hash
      from boundaries b
      left join passes k on k.chain_id = b.chain_id and k.pass_id = b.restore_pass_id
      where b.strategy in ('halt', 'restore')
        and b.chain_id in (select json_array_elements_text(${JSON.stringify([...grown])}::json))`,
  );
  const contextOf = (chainId: string) => {
    const own = marks.filter((m) => m.chain_id === chainId);
    const haltAt = haltOf.get(chainId);
    return integrityContext(
      haltAt === null || haltAt === undefined ? [] : [{ pass_number: Number(haltAt), directive: "HALT" }],
      own.map((m) => ({
        pass_number: Number(m.pass_number),
        strategy: m.strategy,
        restore_pass_id: m.restore_pass_id,
      })),
      own.flatMap((m) =>
        m.restore_pass_id !== null && m.restored_hash !== null
          ? [
              {
                pass_id: m.restore_pass_id,
                pass_number: Number(m.restored_number),
                current_content_hash: m.restored_hash,
              },
            ]
          : [],
      ),
    );
  };
  const byChain = new Map<string, typeof links>();
  for (const l of links) {
    const list = byChain.get(l.chain_id);
    if (list) list.push(l);
    else byChain.set(l.chain_id, [l]);
  }
  for (const [chainId, chainLinks] of byChain) {
    // The pass before the stretch is judged without its own predecessor: its findings are old.
    const prev = chainLinks[0]?.prev_number;
    const prevNumber = prev === null || prev === undefined ? null : Number(prev);
    const findings = findIntegrityIssues(
      chainLinks.map((l) => ({ ...l, pass_number: Number(l.pass_number) })),
      contextOf(chainId),
    );
    for (const f of findings) {
      if (f.pass_number === prevNumber) continue;
      events.push({
        type: "chain.integrity_finding",
        dedupeKey: dedupe("chain.integrity_finding", chainId, f.kind, f.pass_id, f.pass_number),
        data: { chain_id: chainId, content_class: classOf.get(chainId) ?? "default", ...f },
      });
    }
  }
  return events;
}

/**
 * Records the outbox events of one boundary ingest: a halt or restore boundary that arrives
 * after the passes it judges can create a finding (`continued_after_halt`,
 * `restore_not_honoured`) on the pass after it. `before` as for `recordPassEvents`.
 */
export async function recordBoundaryEvents(
  tx: Executor,
  before: Map<string, ChainState>,
  inserted: readonly { chain_id: string; pass_number: number; strategy: string }[],
): Promise<IntegrityKind[]> {
  const judging = inserted.filter((b) => b.strategy === "halt" || b.strategy === "restore");
  if (judging.length === 0) return [];
  const chainIds = [...new Set(judging.map((b) => b.chain_id))];
  const after = await queryRows<{
    chain_id: string;
    content_class: string;
    integrity_count: unknown;
    halt_pass_number: unknown;
  }>(
    tx,
    sql`select chain_id, content_class, integrity_count, halt_pass_number
        from chains where chain_id in (select json_array_elements_text(${JSON.stringify(chainIds)}::json))`,
  );
  const grown = new Set(
    after
      .filter((c) => Number(c.integrity_count) > (before.get(c.chain_id)?.integrityCount ?? 0))
      .map((c) => c.chain_id),
  );
  if (grown.size === 0) return [];
  const events = await integrityFindingEvents(
    tx,
    grown,
    judging.filter((b) => grown.has(b.chain_id)).map((b) => ({ chain_id: b.chain_id, pass_number: b.pass_number })),
    new Map(after.map((c) => [c.chain_id, c.halt_pass_number])),
    new Map(after.map((c) => [c.chain_id, c.content_class])),
  );
  const { recorded } = await recordEvents(tx, events);
  return findingKinds(recorded);
}

/** The kinds of the integrity findings the outbox took (its dedupe key names the kind). */
function findingKinds(recorded: readonly { type: string; dedupe_key: string | null }[]): IntegrityKind[] {
  return recorded
    .filter((r) => r.type === "chain.integrity_finding")
    .map((r) => JSON.parse(r.dedupe_key ?? "[]")[2] as IntegrityKind);
}
