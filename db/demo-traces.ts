// Demo traces that teach the audit views: a conflict between two traces of one chain
// (one verifies what the other falsifies), a falsified path omitted for lack of a receipt,
// a client whose residual digest disagrees, and an agent refused for promoting a conclusion
// it never verified. Called once, from the demo seed of an empty database.
import { ApiError } from "@/lib/errors";
import { storeTrace } from "./queries/traces";

export async function seedDemoTraces(): Promise<void> {
  await storeTrace({
    trace_id: "demo-trace-cache-probe",
    chain_id: "demo-healthy-orders",
    keep_nodes: true,
    residual_digest: null,
    nodes: [
      {
        node_id: "c1",
        node_type: "EXPLORATORY_CHATTER",
        content: "Is the cache folder really read-only, or was that a stale mount?",
        verification_receipt: null,
      },
      {
        node_id: "c2",
        node_type: "FALSIFIED_PATH",
        content: "/var/cache/orders is read-only",
        verification_receipt: "touch /var/cache/orders/probe: exit 0",
      },
      {
        node_id: "c3",
        node_type: "FALSIFIED_PATH",
        content: "Retry the export without a page token",
        verification_receipt: null,
      },
      {
        node_id: "c4",
        node_type: "VERIFIED_CONCLUSION",
        content: "Order pages are addressed by opaque cursor tokens",
        verification_receipt: "GET /orders?cursor=abc: HTTP 200, next_cursor present",
      },
    ],
  });

  await storeTrace({
    trace_id: "demo-trace-schema-fields",
    chain_id: "demo-schema-truncation",
    keep_nodes: false,
    // A client that hashed its residual differently: stored, and flagged.
    residual_digest: "0000000000000000000000000000000000000000000000000000000000000000",
    nodes: [
      {
        node_id: "s1",
        node_type: "VERIFIED_CONCLUSION",
        content: "items.sku is required by the orders schema",
        verification_receipt: "jsonschema: 'sku' is a required property",
      },
      {
        node_id: "s2",
        node_type: "FALSIFIED_PATH",
        content: "Drop items.sku to save tokens",
        verification_receipt: "schema_valid=false at pass 5",
      },
      {
        node_id: "s3",
        node_type: "EXPLORATORY_CHATTER",
        content: "Maybe quantity can be inferred from the line total?",
        verification_receipt: null,
      },
    ],
  });

  try {
    await storeTrace({
      trace_id: "demo-trace-unverified",
      chain_id: "demo-semantic-void",
      keep_nodes: false,
      residual_digest: null,
      nodes: [
        {
          node_id: "u1",
          node_type: "EXPLORATORY_CHATTER",
          content: "The summary still reads fine to me.",
          verification_receipt: null,
        },
        {
          node_id: "u2",
          node_type: "VERIFIED_CONCLUSION",
          content: "The summary keeps every key fact",
          verification_receipt: null,
        },
      ],
    });
  } catch (error) {
    // The refusal is the point: it is recorded as a rejected submission.
    if (!(error instanceof ApiError) || error.code !== "missing_verification_receipt") throw error;
  }
}
