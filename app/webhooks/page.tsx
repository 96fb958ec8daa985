import type { Metadata } from "next";
import { requirePage } from "@/app/_access/page-access";
import { ScrollTable } from "@/components/ui/scroll-box";
import { getWebhook, listDeliveries, listWebhooks } from "@/db/queries/webhooks";
import { webhooksHref } from "@/lib/routes";
import { firstValues, type RawSearchParams } from "@/lib/url-state";
import { WebhookActions } from "@/components/webhooks/webhook-actions";
import { WebhookForm } from "@/components/webhooks/webhook-form";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Webhooks" };

const when = (iso: string | null) => (iso ? iso.replace("T", " ").slice(0, 19) : "—");

export default async function WebhooksPage({ searchParams }: { searchParams: Promise<RawSearchParams> }) {
  await requirePage("/webhooks");
  const { id: selectedId } = firstValues(await searchParams);
  const [{ items }, selected] = await Promise.all([
    listWebhooks({ limit: 500 }),
    selectedId ? getWebhook(selectedId) : Promise.resolve(null),
  ]);
  const deliveries = selected ? (await listDeliveries(selected.id, { limit: 100 })).items : [];

  return (
    <>
      <h1>Webhooks</h1>
      <p className="subtitle">
        Floorline posts signed events to these URLs when a chain collapses, an integrity finding appears, a client
        disagrees with the server, or a trace is refused. Failed deliveries are retried for 24 hours.
      </p>
      <WebhookForm />
      <h2>Subscribed URLs</h2>
      <ScrollTable
        label="Webhooks"
        testId="webhooks-table"
        columns={["URL", "Events", "Class", "Format", "State", "Actions"]}
      >
        {items.length === 0 ? (
          <tr>
            <td colSpan={6} className="empty">
              No webhooks yet.
            </td>
          </tr>
        ) : (
          items.map((w) => (
            <tr key={w.id} data-webhook-id={w.id} data-selected={w.id === selected?.id}>
              <td className="mono">
                <a href={webhooksHref({ id: w.id })}>{w.url}</a>
              </td>
              <td>{w.events.join(", ")}</td>
              <td>{w.content_class ?? "every class"}</td>
              <td>{w.format}</td>
              <td>{w.active ? "active" : "paused"}</td>
              <td>
                <WebhookActions id={w.id} active={w.active} />
              </td>
            </tr>
          ))
        )}
      </ScrollTable>
      {selected ? (
        <section aria-label="Delivery log">
          <h2>Deliveries to {selected.url}</h2>
          <ScrollTable
            label="Deliveries"
            testId="deliveries-table"
            columns={["Event", "Status", "Attempts", "Last answer", "Last attempt", "Next attempt", "Delivered"]}
          >
            {deliveries.length === 0 ? (
              <tr>
                <td colSpan={7} className="empty">
                  Nothing sent to this webhook yet.
                </td>
              </tr>
            ) : (
              deliveries.map((d) => (
                <tr key={d.id}>
                  <td>
                    {d.event_type} <span className="muted mono small">{d.event_id}</span>
                  </td>
                  <td>{d.status}</td>
                  <td>{d.attempts}</td>
                  <td title={d.last_error ?? undefined}>
                    {d.last_status ?? (d.last_error ? "no answer" : "—")}
                    {d.last_error ? <div className="small muted">{d.last_error}</div> : null}
                  </td>
                  <td>{when(d.last_attempt_at)}</td>
                  <td>{when(d.next_attempt_at)}</td>
                  <td>{when(d.delivered_at)}</td>
                </tr>
              ))
            )}
          </ScrollTable>
        </section>
      ) : null}
    </>
  );
}
