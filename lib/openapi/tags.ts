// The tags of the OpenAPI document; each route's operations name theirs (lib/routes/).

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
