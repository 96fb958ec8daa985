import { existsSync } from "node:fs";
import path from "node:path";

/** The repository root, wherever the bench is started from. */
export const repoRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../..");

/**
 * The shared folder with the reference texts: FLOORLINE_SHARED_DIR, or the `shared/`
 * folder the repository is cloned next to. Null when neither exists: the references are
 * not part of the repository, so a bench that needs them must still run without them.
 */
export function findSharedDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = [env.FLOORLINE_SHARED_DIR, path.join(repoRoot, "..", "shared")].filter((c): c is string =>
    Boolean(c),
  );
  return candidates.find((dir) => existsSync(dir)) ?? null;
}
