import { serve } from "@/app/_access/api-route";
import { SERVICE_ROUTES } from "@/lib/routes/service";
import { renderMetrics } from "@/lib/observability/metrics";

export const dynamic = "force-dynamic";

/** Prometheus' text exposition of this process's series (each instance is scraped on its own). */
export const { GET, POST, PUT, PATCH, DELETE } = serve(SERVICE_ROUTES.metrics, {
  GET: async () => {
    const { contentType, body } = await renderMetrics();
    return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
  },
});
