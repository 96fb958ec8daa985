import { methodNotAllowed, route } from "@/app/_access/api-route";
import { renderMetrics } from "@/lib/observability/metrics";

export const dynamic = "force-dynamic";

/** Prometheus' text exposition of this process's series (each instance is scraped on its own). */
export const GET = route("/metrics", async () => {
  const { contentType, body } = await renderMetrics();
  return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
});

const notAllowed = methodNotAllowed("/metrics");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
