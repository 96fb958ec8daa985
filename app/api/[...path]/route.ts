import { ApiError } from "@/lib/errors";

// Unknown API paths answer in the error contract, not with the HTML 404 page.
function notFound(request: Request): Response {
  const { pathname } = new URL(request.url);
  return new ApiError("not_found", `There is no API endpoint at ${pathname}.`).toResponse();
}

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
