// Headroom's `GET /v1/retrieve/stats` (its plugins also probe it to recognise a Headroom store).
import { getHeadroomStoreStats } from "@/db/queries/originals/headroom";
import { route } from "@/app/_access/api-route";
import { headroom, headroomMethodNotAllowed } from "@/lib/originals/headroom/http";
import { statsResponse } from "@/lib/originals/headroom/shapes";

export const GET = route(
  "/v1/retrieve/stats",
  headroom(async () => {
    const { stats, recent } = await getHeadroomStoreStats();
    return Response.json(statsResponse(stats, recent), { headers: { "cache-control": "no-store" } });
  }),
);

const notAllowed = headroomMethodNotAllowed("GET");
export { notAllowed as POST, notAllowed as PUT, notAllowed as PATCH, notAllowed as DELETE };
