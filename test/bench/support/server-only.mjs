// `node --import ./test/bench/support/server-only.mjs`: for a bench that calls the app's server
// code in process (route handlers, queries) without the `react-server` condition, which the
// route handlers' Next.js imports cannot load under. `server-only` resolves to its empty
// module, as the vitest config aliases it for the tests.
import { register } from "node:module";

register(
  `data:text/javascript,${encodeURIComponent(`
    export async function resolve(specifier, context, next) {
      if (specifier === "server-only") return next("server-only", { ...context, conditions: ["react-server", ...context.conditions] });
      return next(specifier, context);
    }`)}`,
  import.meta.url,
);
