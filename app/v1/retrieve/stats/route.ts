// Headroom's `GET /v1/retrieve/stats` (its plugins also probe it to recognise a Headroom store).
import { getHeadroomStoreStats } from "@/db/queries/originals/headroom";
import { serve } from "@/app/_access/api-route";
import { ORIGINAL_ROUTES } from "@/lib/routes/originals";
import { statsResponse } from "@/lib/originals/headroom/shapes";

export const { GET, POST, PUT, PATCH, DELETE } = serve(ORIGINAL_ROUTES.headroomStats, {
  GET: async () => {
    const { stats, recent } = await getHeadroomStoreStats();
    return Response.json(statsResponse(stats, recent), { headers: { "cache-control": "no-store" } });
  },
});
