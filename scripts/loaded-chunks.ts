// What Node's CommonJS cache keeps of the app's server chunks once Turbopack has read them.
//
// Turbopack's server runtime (`<distDir>/server/chunks/[turbopack]_runtime.js`) loads a chunk
// with `require`, copies its module factories into a table of its own (the first copy of a
// module wins) and remembers the chunk's path so that it never loads it again. Node's cache
// keeps every chunk anyway: its exports (the factories) and, through them, the chunk's source.
// A production build repeats the modules that every route shares in a chunk of each route
// (vercel/next.js#89192): here the access gate, the database, the schemas and the measurement,
// about 250 KB repeated in the chunks of some thirty routes. Next.js loads every route at
// start, so the cache held about 25 MB of sources and factories no one would call again: more
// than a quarter of an idle server's heap, and about twice that in resident memory under load,
// where the heap grows to twice what is live (docs/operations.md, "Memory").
//
// Dropping the chunks from the cache (and from the runtime module's `children`, which also
// holds them) frees those copies and changes nothing else: the runtime's own table keeps the
// factories it installed, and it asks Node for a chunk only the first time it needs it.
import { createRequire } from "node:module";
import path from "node:path";

const cache = createRequire(import.meta.url).cache;

/** The runtime itself is what loads chunks: it stays. */
const RUNTIME = /[\\/]\[turbopack\]_runtime\.js$/;

/**
 * Drops the server chunks under `serverDir` (`<distDir>/server`) that Node's cache holds;
 * returns how many. Safe to call at any time and again as routes load chunks of their own.
 */
export function releaseLoadedChunks(serverDir: string): number {
  const chunks = path.join(path.resolve(serverDir), "chunks") + path.sep;
  const isChunk = (id: string) => id.startsWith(chunks) && id.endsWith(".js") && !RUNTIME.test(id);
  const released = Object.keys(cache).filter(isChunk);
  if (released.length === 0) return 0;
  for (const id of released) delete cache[id];
  for (const module of Object.values(cache)) {
    if (module?.children.some((child) => isChunk(child.id))) {
      module.children = module.children.filter((child) => !isChunk(child.id));
    }
  }
  return released.length;
}
