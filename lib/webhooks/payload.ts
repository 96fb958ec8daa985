// What a webhook delivery carries. The event is built once, when it is recorded (in the
// transaction of the write that caused it); the body is rendered per webhook at delivery
// time, in the webhook's format.
import { chainHref, tracesHref, webhooksHref } from "../routes";
import type { BoundaryStrategy } from "../schemas/boundaries";
import type { PassWire } from "../schemas/passes";

export const WEBHOOK_EVENT_TYPES = [
  "chain.collapsed",
  "chain.guarded",
  "chain.integrity_finding",
  "pass.client_mismatch",
  "trace.rejected",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** Sent only by the "send a test event" action, to the one webhook it was asked for. */
export const TEST_EVENT_TYPE = "webhook.test";

export const WEBHOOK_FORMATS = ["json", "slack"] as const;
type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/** What every event about one pass of a chain carries: fields of the stored pass, as the API names them. */
type PassEventData = Pick<PassWire, "chain_id" | "content_class" | "pass_id" | "pass_number">;
type FloorPassData = PassEventData & Pick<PassWire, "verdict" | "directive">;

/** How content went past a floor (docs/webhooks.md): every one that applies. */
export const COLLAPSE_REASONS = [
  "continued_after_halt",
  "restore_not_honoured",
  "floor_passed_without_boundary",
] as const;
type CollapseReason = (typeof COLLAPSE_REASONS)[number];

/** The chain's collapse point (its first floor pass), or its last pass when it never reached a floor. */
type ChainCollapsedData = FloorPassData & { reasons: CollapseReason[] };
/** The floor pass a boundary answered, and how. */
type ChainGuardedData = FloorPassData & { strategy: BoundaryStrategy };
type IntegrityFindingData = PassEventData & {
  kind: string;
  detail: string;
  /** A marker finding's marker hash (docs/markers.md). */
  hash?: string;
};
type ClientMismatchData = FloorPassData &
  Pick<PassWire, "manifest_digest" | "client_verdict" | "client_manifest_digest">;
interface TraceRejectedData {
  trace_id: string;
  chain_id: string | null;
  node_id: string;
  message: string;
}
interface TestEventData {
  message: string;
  webhook_id: string;
}

export type EventData =
  | { type: "chain.collapsed"; data: ChainCollapsedData }
  | { type: "chain.guarded"; data: ChainGuardedData }
  | { type: "chain.integrity_finding"; data: IntegrityFindingData }
  | { type: "pass.client_mismatch"; data: ClientMismatchData }
  | { type: "trace.rejected"; data: TraceRejectedData }
  | { type: typeof TEST_EVENT_TYPE; data: TestEventData };

/** An event as delivered in the JSON format. */
export type WebhookEvent = EventData & { id: string; created_at: string; url: string };

/** The content class an event concerns, for webhooks that filter on one (trace events have none). */
export function contentClassOf(event: EventData): string | null {
  return "content_class" in event.data ? event.data.content_class : null;
}

/** The dashboard page that shows what the event is about. */
export function pageUrl(baseUrl: string, event: EventData): string {
  const base = baseUrl.replace(/\/+$/, "");
  switch (event.type) {
    case "chain.collapsed":
    case "chain.guarded":
    case "chain.integrity_finding":
    case "pass.client_mismatch":
      return `${base}${chainHref(event.data.chain_id)}`;
    case "trace.rejected":
      return `${base}${tracesHref()}`;
    case TEST_EVENT_TYPE:
      return `${base}${webhooksHref()}`;
  }
}

// Slack's mrkdwn treats these three as markup; everything a client sent is escaped.
const slackEscape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const code = (text: string) => `\`${slackEscape(text).replace(/`/g, "'")}\``;

function slackText(event: WebhookEvent): string {
  const link = (label: string) => `<${event.url}|${slackEscape(label)}>`;
  switch (event.type) {
    case "chain.collapsed": {
      const d = event.data;
      const why = d.reasons.map((r) => r.replaceAll("_", " ")).join(", ");
      return `:rotating_light: Chain ${link(d.chain_id)} collapsed at pass ${d.pass_number} (${code(d.pass_id)}): ${d.verdict}, class ${code(d.content_class)}; ${why}.\n>${slackEscape(d.directive)}`;
    }
    case "chain.guarded": {
      const d = event.data;
      return `:shield: Chain ${link(d.chain_id)} was guarded at pass ${d.pass_number} (${code(d.pass_id)}): ${d.verdict}, and the agent chose ${d.strategy.replaceAll("_", " ")}. Class ${code(d.content_class)}.`;
    }
    case "chain.integrity_finding": {
      const d = event.data;
      const hash = d.hash === undefined ? "" : `, marker ${code(d.hash)}`;
      return `:warning: Integrity finding on chain ${link(d.chain_id)}: ${d.kind} at pass ${d.pass_number} (${code(d.pass_id)})${hash}.\n>${slackEscape(d.detail)}`;
    }
    case "pass.client_mismatch": {
      const d = event.data;
      return `:warning: Client and server disagree on pass ${d.pass_number} (${code(d.pass_id)}) of chain ${link(d.chain_id)}: the server said ${d.verdict}, the client ${d.client_verdict ?? "(no verdict)"}.`;
    }
    case "trace.rejected": {
      const d = event.data;
      return `:no_entry: Trace ${code(d.trace_id)} was refused: node ${code(d.node_id)} is a verified conclusion without a receipt. ${link("Refused traces")}`;
    }
    case TEST_EVENT_TYPE:
      return `:white_check_mark: Test event from Floorline (${link("webhooks")}): ${slackEscape(event.data.message)}`;
  }
}

/** The request body of one delivery, exactly as signed and sent. */
export function renderBody(event: WebhookEvent, format: WebhookFormat): string {
  if (format === "slack") return JSON.stringify({ text: slackText(event) });
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.created_at,
    data: event.data,
    url: event.url,
  });
}
