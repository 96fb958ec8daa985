// Route handlers called in-process get plain Request objects with no socket behind them.
// They stand for what `npm start` on a laptop sees: a client on this machine, with no proxy,
// talking to a server on loopback. Suites about other peers stamp their requests
// themselves (test/integration/access-helpers.ts `fromSocket`).
import { setStamplessFacts } from "@/lib/auth/client-address";

setStamplessFacts({ peer: "127.0.0.1", listen: "127.0.0.1" });
