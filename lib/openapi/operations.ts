// What the OpenAPI document says about each route of the registry: the zod schemas that
// validate its input (the same objects the handlers call safeParse with) and those of its
// answers, one file per concept under operations/. The table below must cover the registry:
// a route or method added there without an entry in its concept's file does not compile.
import { SERVICE_OPERATIONS } from "./operations/service";
import { INGEST_OPERATIONS } from "./operations/ingest";
import { CHAINS_OPERATIONS } from "./operations/chains";
import { POLICIES_OPERATIONS } from "./operations/policies";
import { ORIGINALS_OPERATIONS } from "./operations/originals";
import { TRACES_OPERATIONS } from "./operations/traces";
import { ACCESS_OPERATIONS } from "./operations/access";
import { WEBHOOKS_OPERATIONS } from "./operations/webhooks";
import { MCP_OPERATIONS } from "./operations/mcp";
import type { OperationTable } from "./operations/spec";

export type { OperationSpec, ResponseSpec } from "./operations/spec";

export const OPERATIONS: OperationTable = {
  ...SERVICE_OPERATIONS,
  ...INGEST_OPERATIONS,
  ...CHAINS_OPERATIONS,
  ...POLICIES_OPERATIONS,
  ...ORIGINALS_OPERATIONS,
  ...TRACES_OPERATIONS,
  ...ACCESS_OPERATIONS,
  ...WEBHOOKS_OPERATIONS,
  ...MCP_OPERATIONS,
};

/** Tags in the order the reference shows them, with what each covers. */
export const TAGS: { name: string; description: string }[] = [
  { name: "Guard", description: "The stateless collapse guard." },
  { name: "Receipts", description: "Ingest of pass and boundary receipts." },
  { name: "Chains", description: "Chains as recorded: passes, collapse points, integrity." },
  { name: "Policies", description: "Floors per content class, versioned." },
  { name: "Originals", description: "The CCR store of cached originals." },
  { name: "Traces", description: "Distilled reasoning traces." },
  { name: "Headroom", description: 'Headroom-compatible retrieval, answering errors as `{"detail": ...}`.' },
  { name: "Access", description: "API keys, operators and their sign-in sessions." },
  { name: "Webhooks", description: "Alerts pushed to your endpoints, signed, retried for 24 hours." },
  { name: "MCP", description: "The tools for agents, over the Model Context Protocol (docs/mcp.md)." },
  { name: "Metrics", description: "Prometheus metrics." },
  { name: "Health", description: "Liveness of the server and its database." },
  { name: "Docs", description: "This reference." },
];
