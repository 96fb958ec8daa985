// Paths under /v1 that Headroom's proxy has and Floorline does not serve answer as FastAPI
// would (`{"detail": "Not Found"}`), never with the HTML 404 page.
import { detail } from "@/lib/originals/headroom/http";

async function notFound(): Promise<Response> {
  return detail(404, "Not Found");
}

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
