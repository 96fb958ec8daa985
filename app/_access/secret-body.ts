// Bodies that carry a password. The JSON reader's error says where the text went wrong, and
// V8's message quotes the text itself when it is short: for these bodies that would hand a
// password back in an error (and to whatever logs the answer). Same 4xx, no quote.
import "server-only";
import { ApiError } from "@/lib/errors";
import { readJson } from "@/lib/http/body";

export async function readSecretJson(request: Request, limit?: number): Promise<unknown> {
  try {
    return await readJson(request, limit);
  } catch (error) {
    if (error instanceof ApiError && error.code === "invalid_json") {
      throw new ApiError("invalid_json", "The body is not valid JSON; send a JSON object.");
    }
    throw error;
  }
}
