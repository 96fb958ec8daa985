import { createHash } from "node:crypto";

/** `hashlib.sha256(data.encode("utf-8")).hexdigest()`. */
export function sha256Hex(data: string): string {
  return createHash("sha256").update(data, "utf8").digest("hex");
}
