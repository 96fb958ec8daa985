// The MCP tools, run on the same queries and pure functions as the routes they mirror: the
// retrieval of POST /api/v1/retrieve, the measurement of POST /api/v1/measure with the guard of
// POST /api/v1/evaluate, the traces of GET /api/v1/traces and the chain of
// GET /api/v1/chains/{chain_id}. Names, descriptions and scopes: lib/mcp/tools.ts.
import "server-only";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { getCheckContext } from "@/db/queries/check-context";
import { getChain, getChainSummary } from "@/db/queries/chains";
import { retrieveOriginal } from "@/db/queries/originals/retrieve";
import { getPolicy } from "@/db/queries/policies";
import { getChainTraceConstraints } from "@/db/queries/action-space";
import { getTrace } from "@/db/queries/traces";
import { getLineageConstraints } from "@/db/queries/trace-lineage";
import { admits, mayReadOriginals, type Principal } from "@/lib/auth/access";
import { ApiError, zodIssues } from "@/lib/errors";
import { COLLAPSE_VERDICTS, evaluatePass } from "@/lib/guard/guard";
import { sha256Hex } from "@/lib/guard/hash";
import { baseScopeOf, TOOL_NAMES, TOOLS, type ToolName } from "@/lib/mcp/tools";
import { MeasureFailure, measureOffThread, measurementBusy } from "@/lib/measure/pool";
import { measureRequestSchema, oversizedFields } from "@/lib/schemas/measure";
import { retrieveRequestSchema } from "@/lib/schemas/originals";
import { buildActionSpace, parseInvalidation, type TraceConstraints } from "@/lib/traces/action-space";

/** How many of a chain's last passes floorline_chain shows. */
const LAST_PASSES = 5;

/** An answer a model reads as JSON text; clients that read structured content get the object. */
function answer(body: Record<string, unknown>, text = JSON.stringify(body, null, 2)): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: body };
}

/** A refusal the model can act on: the contract's error, as the mirrored route would answer it. */
function refusal(error: ApiError): CallToolResult {
  const body = error.toBody();
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body, null, 2) }], structuredContent: body };
}

function invalid(issues: { path: string; message: string }[], message = "The arguments are not valid."): never {
  throw new ApiError("validation_failed", message, { issues });
}

async function retrieve(args: { hash: string; tenant?: string }): Promise<CallToolResult> {
  const parsed = retrieveRequestSchema.safeParse(args);
  if (!parsed.success) invalid(zodIssues(parsed.error));
  const found = await retrieveOriginal(parsed.data.hash, { tenant: parsed.data.tenant });
  // The text itself first: it is what the model asked for.
  return answer({ ...found }, found.original);
}

async function check(
  args: { content: string; source?: string; chain_id?: string; content_class?: string },
  principal: Principal,
): Promise<CallToolResult> {
  const parsed = measureRequestSchema.safeParse({
    content: args.content,
    source: args.source,
    content_class: args.content_class,
  });
  if (!parsed.success) invalid(zodIssues(parsed.error));
  const oversized = oversizedFields(parsed.data);
  if (oversized.length > 0) {
    throw new ApiError("payload_too_large", `${oversized.join(" and ")} must be at most 4 MiB as UTF-8.`);
  }
  if (args.source === undefined && args.chain_id === undefined) {
    invalid([{ path: "source", message: "give the source it was compressed from, or the chain_id it continues" }]);
  }
  const context =
    args.chain_id === undefined ? null : await getCheckContext(args.chain_id, mayReadOriginals(principal));
  if (args.chain_id !== undefined && !context) {
    throw new ApiError("not_found", `No chain ${JSON.stringify(args.chain_id)} has any receipts.`);
  }
  const contentClass = parsed.data.content_class ?? context?.content_class ?? "default";
  const policy = await getPolicy(contentClass);
  const source = parsed.data.source ?? context?.source;
  const passNumber = context ? (context.last_pass_number ?? 0) + 1 : 1;
  let measured: Awaited<ReturnType<typeof measureOffThread>>["measurement"];
  try {
    ({ measurement: measured } = await measureOffThread({
      content: args.content,
      source,
      format: policy.format,
      requiredFields: policy.required_fields,
    }));
  } catch (error) {
    if (!(error instanceof MeasureFailure)) throw error;
    if (error.reason === "busy") throw measurementBusy();
    throw new ApiError("measurement_failed", `This content could not be measured: ${error.message}.`);
  }
  const sizeBytes = Buffer.byteLength(args.content, "utf8");
  const contentHash = sha256Hex(args.content);
  // The guard on what the server measured, as a stored pass's checked verdict is judged.
  const manifest = evaluatePass(
    {
      pass_id: "candidate",
      pass_number: passNumber,
      current_content_hash: contentHash,
      current_size_bytes: sizeBytes,
      is_parseable: measured.parseable,
      schema_valid: measured.schema_valid ?? true,
      semantic_density_score: measured.semantic_density_score,
    },
    policy,
  );
  const { recoverable_examples: _, ...measurement } = measured;
  return answer({
    verdict: manifest.verdict,
    directive: manifest.directive,
    manifest_digest: manifest.manifest_digest,
    usable: !COLLAPSE_VERDICTS.has(manifest.verdict),
    pass_number: passNumber,
    content_class: contentClass,
    policy: {
      version: policy.version,
      min_size_bytes: policy.min_size_bytes,
      min_semantic_density: policy.min_semantic_density,
      max_pass_number: policy.max_pass_number,
    },
    size_bytes: sizeBytes,
    content_hash: contentHash,
    // Where the facts were counted from: a candidate without a known source is measured alone.
    source: parsed.data.source != null ? "given" : source !== undefined ? "chain" : "unknown",
    measured: measurement,
    facts_lost: measurement.facts?.lost ?? null,
  });
}

function constraintsOf(traces: readonly TraceConstraints[], omitted: number) {
  const space = buildActionSpace(traces);
  return {
    binding_axioms: space.axioms.map((a) => ({
      axiom: a.axiom,
      receipts: a.established_by.map((e) => ({ trace_id: e.trace_id, receipt: e.receipt })),
      contradicted: a.conflicts_with.length > 0,
    })),
    invalidations: traces.flatMap((t) =>
      t.invalidated_paths.map((text) => ({ trace_id: t.trace_id, ...parseInvalidation(text) })),
    ),
    superseded_hypotheses: space.forbidden.map((f) => ({
      hypothesis: f.path,
      ruled_out_by: f.established_by.map((e) => ({ trace_id: e.trace_id, receipt: e.receipt })),
    })),
    conflicts: space.conflicts.map((c) => ({
      axiom: c.axiom,
      invalidation: c.invalidation,
      axiom_trace_ids: c.axiom_trace_ids,
      falsifying_trace_ids: c.falsifying_trace_ids,
    })),
    // Falsified paths recorded without a receipt: the reference keeps no constraint for them.
    omitted_falsified_paths: omitted,
  };
}

async function constraints(args: { trace_id?: string; chain_id?: string }): Promise<CallToolResult> {
  if ((args.trace_id === undefined) === (args.chain_id === undefined)) {
    invalid([{ path: "trace_id", message: "give exactly one of trace_id and chain_id" }]);
  }
  if (args.trace_id !== undefined) {
    // The trace and its ancestors (docs/lineage.md): a successor inherits every wall of its line.
    const [trace, lineage] = await Promise.all([getTrace(args.trace_id), getLineageConstraints(args.trace_id)]);
    if (!trace || !lineage)
      throw new ApiError("not_found", `No trace ${JSON.stringify(args.trace_id)} has been stored.`);
    return answer({
      trace_id: trace.trace_id,
      chain_id: trace.chain_id,
      lineage: lineage.traces.map((t) => t.trace_id),
      lineage_truncated: lineage.truncated,
      ...constraintsOf(
        lineage.traces,
        lineage.traces.reduce((n, t) => n + t.omitted_falsified_paths, 0),
      ),
      // Walls this trace itself already walked into.
      findings: trace.findings,
    });
  }
  const chainId = args.chain_id as string;
  const stored = await getChainTraceConstraints(chainId);
  if (stored.traces.length === 0) {
    throw new ApiError("not_found", `No trace of chain ${JSON.stringify(chainId)} has been stored.`);
  }
  return answer({
    chain_id: chainId,
    trace_ids: stored.traces.map((t) => t.trace_id),
    truncated: stored.truncated,
    ...constraintsOf(
      stored.traces,
      stored.traces.reduce((n, t) => n + t.omitted_falsified_paths, 0),
    ),
  });
}

async function chain(args: { chain_id: string }): Promise<CallToolResult> {
  const [detail, summary] = await Promise.all([getChain(args.chain_id), getChainSummary(args.chain_id)]);
  if (!detail) throw new ApiError("not_found", `No chain ${JSON.stringify(args.chain_id)} has any receipts.`);
  return answer({
    chain_id: detail.chain_id,
    content_class: detail.content_class,
    statuses: summary?.statuses ?? [],
    pass_count: detail.passes.length,
    collapse_point: detail.collapse_point,
    boundaries: detail.boundaries.map((b) => ({
      pass_number: b.pass_number,
      strategy: b.strategy,
      reason: b.reason,
      restore_pass_id: b.restore_pass_id,
    })),
    findings: detail.integrity,
    client_mismatches: detail.client_mismatches,
    measurement_mismatches: detail.measurement_mismatches,
    last_passes: detail.passes.slice(-LAST_PASSES).map((p) => ({
      pass_id: p.pass_id,
      pass_number: p.pass_number,
      verdict: p.effective_verdict,
      directive: p.directive,
      current_size_bytes: p.current_size_bytes,
      semantic_density_score: p.semantic_density_score,
    })),
  });
}

/**
 * The server for one request (the endpoint is stateless), with the tools the caller's
 * credential can call at all. `failed` receives an error that is not the caller's (the
 * database down, a bug): the route answers it with the contract's 503 or 500, not as a result.
 */
export function mcpServerFor(principal: Principal, failed: (error: unknown) => void): McpServer {
  const server = new McpServer(
    { name: "floorline", version: "1" },
    {
      instructions:
        "Floorline watches context compression. Check a compressed candidate before using it (floorline_check), fetch what a compression marker replaced (floorline_retrieve), read what a predecessor settled before acting (floorline_constraints), and see whether a chain has collapsed (floorline_chain).",
    },
  );
  const run =
    <A>(work: (args: A) => Promise<CallToolResult>) =>
    async (args: A): Promise<CallToolResult> => {
      try {
        return await work(args);
      } catch (error) {
        if (error instanceof ApiError && error.status < 500) return refusal(error);
        failed(error);
        return refusal(new ApiError("internal_error", "The server failed to handle this call."));
      }
    };
  const readOnly = { readOnlyHint: true, openWorldHint: false } as const;
  const tools: { [N in ToolName]: () => void } = {
    floorline_retrieve: () =>
      server.registerTool(
        "floorline_retrieve",
        { ...texts("floorline_retrieve"), inputSchema: TOOLS.floorline_retrieve.input, annotations: readOnly },
        run(retrieve),
      ),
    floorline_check: () =>
      server.registerTool(
        "floorline_check",
        { ...texts("floorline_check"), inputSchema: TOOLS.floorline_check.input, annotations: readOnly },
        run((args) => check(args, principal)),
      ),
    floorline_constraints: () =>
      server.registerTool(
        "floorline_constraints",
        { ...texts("floorline_constraints"), inputSchema: TOOLS.floorline_constraints.input, annotations: readOnly },
        run(constraints),
      ),
    floorline_chain: () =>
      server.registerTool(
        "floorline_chain",
        { ...texts("floorline_chain"), inputSchema: TOOLS.floorline_chain.input, annotations: readOnly },
        run(chain),
      ),
  };
  for (const name of TOOL_NAMES) if (admits(principal, baseScopeOf(name))) tools[name]();
  return server;
}

function texts(name: ToolName) {
  return { title: TOOLS[name].title, description: TOOLS[name].description };
}
