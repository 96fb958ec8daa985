/** The module `entry` (a path from the repository's root) exports, bundled by esbuild (bundle.mjs). */
export function importBundled(entry: string): Promise<unknown>;
