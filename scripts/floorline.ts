// `npm run floorline -- <command>`: the first API key and operator, and key management, on the
// database the server uses: DATABASE_URL, else the embedded folder (--data-dir, read as
// `npm start` reads it, else FLOORLINE_DATA_DIR, else .floorline/data). While a server holds
// that folder, the CLI asks the server, over loopback with the token the server wrote into
// the folder (db/server-record.ts, scripts/floorline-server.ts); otherwise it opens the
// database itself, under the folder's lock, with the migrations applied first, and calls the
// query layer the way the app does (db/index.ts, db/queries/access.ts). Run with the
// `react-server` condition, as the server code it imports expects.
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { authMode, keyCreatedNotice } from "../lib/auth/access";
import { KEY_SCOPES, type KeyScope, MIN_PASSWORD_LENGTH, ROLES, type Role } from "../lib/auth/credentials";
import { env, envRecord } from "../lib/env";
import type { ApiKeyWire } from "../lib/schemas/access";
import { DataFolderLockedError, dataLockOwner } from "../db/data-lock";
import { closeDb, getDb, openDatabase, setHandle } from "../db/index";
import { remeasureClass } from "../db/queries/remeasure";
import { contentClassSchema } from "../lib/schemas/common";
import { configFromEnv } from "../db/config";
import {
  createApiKey,
  createOperator,
  credentialsExist,
  listApiKeys,
  listOperators,
  operatorsExist,
  revokeApiKey,
} from "../db/queries/access";
import { runningServer, SERVER_COMMAND } from "../db/server-record";
import { applyDataDirFlag } from "./data-dir";
import { ServerRefusal, serverBackend } from "./floorline-server";

const USAGE = `Usage: npm run floorline -- <command> [options]

  keys create --name NAME --scopes ingest,read,admin   create an API key (printed once)
  keys list                                            list keys (never their secrets)
  keys revoke ID                                       revoke a key at once
  operators create --name NAME --role viewer|admin     create a dashboard operator
        [--password-stdin]                             read the password from stdin (else prompted)
  operators list                                       list operators
  remeasure --class NAME                               measure a class's passes again by the method of
                                                       the day, beside their own answers, and compare

  --data-dir PATH   the embedded database's folder, as for npm start (FLOORLINE_DATA_DIR;
                    default .floorline/data)
  --json            print JSON for scripts

The database is DATABASE_URL, else the embedded folder. While a server runs on that folder,
the CLI goes through it (over loopback, with the token the server keeps in the folder);
otherwise it opens the folder itself. remeasure works on the database itself: against the
embedded folder, stop the server first (docs/measurement.md, "Re-measuring a class").`;

class UsageError extends Error {}

const COMMANDS = [
  "keys create",
  "keys list",
  "keys revoke",
  "operators create",
  "operators list",
  "remeasure",
] as const;
type Command = (typeof COMMANDS)[number];

/** What a command needs, validated before the database is touched. */
type Input =
  | { command: "keys create"; name: string; scopes: KeyScope[] }
  | { command: "keys revoke"; id: string }
  | { command: "operators create"; name: string; role: Role; password: string }
  | { command: "keys list" | "operators list" }
  | { command: "remeasure"; contentClass: string };

function print(json: boolean, value: unknown, text: string): void {
  console.log(json ? JSON.stringify(value, null, 2) : text);
}

function requireName(name: string | undefined): string {
  const trimmed = (name ?? "").trim();
  if (!trimmed || trimmed.length > 100) throw new UsageError("--name is required (1-100 characters).");
  return trimmed;
}

const isScope = (s: string): s is KeyScope => (KEY_SCOPES as readonly string[]).includes(s);
const isRole = (s: string | undefined): s is Role => (ROLES as readonly (string | undefined)[]).includes(s);
const isCommand = (s: string): s is Command => (COMMANDS as readonly string[]).includes(s);

async function readPassword(fromStdin: boolean): Promise<string> {
  if (fromStdin) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks)
      .toString("utf8")
      .replace(/\r?\n$/, "");
  }
  if (!process.stdin.isTTY) throw new UsageError("No terminal to ask for a password: pass it with --password-stdin.");
  const ask = (prompt: string) =>
    new Promise<string>((resolve) => {
      const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
      // Echo nothing of what is typed (readline's one hook for what it writes back).
      (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s) => {
        if (s.startsWith(prompt)) process.stdout.write(prompt);
      };
      rl.question(prompt, (answer) => {
        rl.close();
        process.stdout.write("\n");
        resolve(answer);
      });
    });
  const first = await ask("Password: ");
  if ((await ask("Again: ")) !== first) throw new UsageError("The passwords differ.");
  return first;
}

async function validate(command: Command, values: Record<string, string | boolean | undefined>, arg?: string) {
  const text = (name: string) => (typeof values[name] === "string" ? (values[name] as string) : undefined);
  switch (command) {
    case "keys create": {
      const asked = [
        ...new Set(
          (text("scopes") ?? "")
            .split(",")
            .map((s) => s.trim())
            .filter(Boolean),
        ),
      ];
      const bad = asked.filter((s) => !isScope(s));
      if (asked.length === 0 || bad.length > 0) {
        throw new UsageError(
          `--scopes takes one or more of ${KEY_SCOPES.join(", ")}${bad.length ? ` (not ${bad.join(", ")})` : ""}.`,
        );
      }
      return { command, name: requireName(text("name")), scopes: asked.filter(isScope) } satisfies Input;
    }
    case "keys revoke":
      if (!/^[0-9a-f]{16}$/.test(arg ?? ""))
        throw new UsageError("keys revoke takes a key id (16 hex digits; see keys list).");
      return { command, id: arg as string } satisfies Input;
    case "operators create": {
      const role = text("role");
      if (!isRole(role)) throw new UsageError(`--role is ${ROLES.join(" or ")}.`);
      const name = requireName(text("name"));
      const password = await readPassword(Boolean(values["password-stdin"]));
      if (password.length < MIN_PASSWORD_LENGTH)
        throw new UsageError(`The password needs at least ${MIN_PASSWORD_LENGTH} characters.`);
      return { command, name, role, password } satisfies Input;
    }
    case "remeasure": {
      const parsed = contentClassSchema.safeParse(text("class"));
      if (!parsed.success) throw new UsageError("remeasure takes --class NAME, a content class as policies name it.");
      return { command, contentClass: parsed.data } satisfies Input;
    }
    default:
      return { command } satisfies Input;
  }
}

const keyLine = (k: ApiKeyWire) =>
  `${k.id}  ${k.name.padEnd(20)} ${k.scopes.join(",").padEnd(18)} last used ${k.last_used_at ?? "never"}${k.revoked_at ? `  REVOKED ${k.revoked_at}` : ""}`;

/** Where the commands go: the database itself, or the server that holds its folder. */
type Backend = ReturnType<typeof serverBackend>;

function databaseBackend(): Backend {
  // The migrations run as the database opens; the embedded folder's lock refuses (naming the
  // holder) while another process owns it.
  setHandle(openDatabase(configFromEnv()));
  return {
    async createKey(input) {
      const first = !(await credentialsExist());
      const created = await createApiKey({ ...input, createdBy: "cli" });
      // As the API says it (app/api/v1/keys/route.ts); forced off, a key changes nothing for the pages.
      const notice =
        authMode(envRecord()) === "off"
          ? null
          : keyCreatedNotice({ turnedAccessOn: first, operatorsExist: await operatorsExist() });
      return { ...created, notice };
    },
    listKeys: listApiKeys,
    revokeKey: revokeApiKey,
    createOperator,
    listOperators,
    close: closeDb,
  };
}

// A server publishes how to reach it once it serves; its start (migrations, the demo's seed)
// holds the folder's lock before that.
const SERVER_START_WAIT_MS = 120_000;

/** The server holding the embedded folder, when one runs and said how to reach it (waiting while it starts). */
async function folderServer(wait = true): Promise<Backend | null> {
  const dataDir = env("DATABASE_URL") ? undefined : configFromEnv().dataDir;
  if (!dataDir || dataDir.includes("://")) return null;
  let server = runningServer(dataDir);
  const deadline = Date.now() + SERVER_START_WAIT_MS;
  for (
    let said = false;
    wait && !server && dataLockOwner(dataDir)?.command === SERVER_COMMAND && Date.now() < deadline;
  ) {
    if (!said)
      console.error(`floorline: waiting for the server (process ${dataLockOwner(dataDir)?.pid}) to finish starting…`);
    said = true;
    await new Promise((resolve) => setTimeout(resolve, 250));
    server = runningServer(dataDir);
  }
  if (!server) return null;
  if (server.address === null) {
    throw new Error(
      `The data folder ${dataDir} is held by a server (process ${server.pid}) that listens on no loopback address, so the CLI cannot reach it. Use the API with an admin key (or FLOORLINE_API_TOKEN), or stop the server.`,
    );
  }
  return serverBackend(server);
}

const score = (x: number | null) => (x === null ? "none" : x.toFixed(4));

/** Re-measures a class on the database itself (never through a server: it is a long batch). */
async function remeasure(contentClass: string, json: boolean): Promise<void> {
  setHandle(openDatabase(configFromEnv()));
  try {
    let last = 0;
    const report = await remeasureClass(await getDb(), contentClass, ({ done, total }) => {
      // A line a second at most, and the last one.
      if (Date.now() - last < 1000 && done < total) return;
      last = Date.now();
      console.error(`floorline: re-measured ${done} of ${total} passes of ${contentClass}`);
    });
    const moves = report.largest_moves
      .map((m) => `  ${m.chain_id} pass ${m.pass_number}: ${score(m.before?.score ?? null)} -> ${score(m.after)}`)
      .join("\n");
    print(
      json,
      report,
      [
        `${contentClass}: ${report.measured} of ${report.passes} passes re-measured by ${report.method}` +
          ` (${report.passes - report.measurable} without a kept source or cached content, ${report.failed} failed).`,
        `Median before ${score(report.median_before)}, now ${score(report.median_after)}.`,
        `Against the floor ${report.floor} (the class follows the ${report.density_source} density):` +
          ` ${report.fell_under_floor} passes fall under it, ${report.rose_above_floor} rise above it.`,
        ...(moves ? ["Largest moves:", moves] : []),
        "The passes keep their own answers; the new ones are kept beside them (table remeasurements).",
      ].join("\n"),
    );
  } finally {
    await closeDb();
  }
}

/** The commands a backend (the database, or the server holding its folder) carries out. */
async function execute(
  input: Exclude<Input, { command: "remeasure" }>,
  json: boolean,
  backend: Backend,
): Promise<void> {
  switch (input.command) {
    case "keys create": {
      const created = await backend.createKey({ name: input.name, scopes: input.scopes });
      print(
        json,
        created,
        `Created key ${created.name} (${created.id}) with scopes ${created.scopes.join(", ")}.\n\n  ${created.key}\n\nCopy it now: it is shown this once and stored only as a hash. Send it as "Authorization: Bearer <key>".${created.notice ? `\n\n${created.notice}` : ""}`,
      );
      return;
    }
    case "keys list": {
      const keys = await backend.listKeys();
      print(json, keys, keys.length ? keys.map(keyLine).join("\n") : "No API keys.");
      return;
    }
    case "keys revoke": {
      const key = await backend.revokeKey(input.id);
      if (!key) throw new UsageError(`There is no key ${input.id}.`);
      print(json, key, `Revoked key ${key.name} (${key.id}); servers refuse it from their next request.`);
      return;
    }
    case "operators create": {
      const created = await backend.createOperator({ name: input.name, role: input.role, password: input.password });
      if (!created) throw new UsageError(`An operator named ${input.name} already exists.`);
      print(json, created, `Created ${created.role} ${created.name}; sign in at /sign-in.`);
      return;
    }
    case "operators list": {
      const list = await backend.listOperators();
      print(
        json,
        list,
        list.length
          ? list.map((o) => `${o.id}  ${o.name}  ${o.role}${o.disabled_at ? "  DISABLED" : ""}`).join("\n")
          : "No operators.",
      );
      return;
    }
  }
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      scopes: { type: "string" },
      role: { type: "string" },
      "password-stdin": { type: "boolean" },
      "data-dir": { type: "string" },
      class: { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [noun, verb, arg] = positionals;
  if (values.help || !noun) return void console.log(USAGE);
  const command = `${noun} ${verb ?? ""}`.trim();
  if (!isCommand(command)) throw new UsageError(`Unknown command "${command}".`);
  applyDataDirFlag(values["data-dir"]);
  const input = await validate(command, values, arg);
  if (input.command === "remeasure") {
    if (await folderServer(false)) {
      throw new UsageError(
        "remeasure works on the database itself, and a server holds the embedded folder: stop it first, or point DATABASE_URL at the PostgreSQL server.",
      );
    }
    return remeasure(input.contentClass, Boolean(values.json));
  }

  const backend = (await folderServer()) ?? databaseBackend();
  try {
    await execute(input, Boolean(values.json), backend);
  } finally {
    await backend.close();
  }
}

run(process.argv.slice(2)).then(
  () => process.exit(0),
  (error) => {
    if (error instanceof DataFolderLockedError) {
      // Held, but by no server that said how to reach it: `npm run db:migrate`, another CLI.
      console.error(`floorline: ${error.message}\nIf it is a migration or another CLI, try again when it is done.`);
      process.exit(3);
    }
    if (
      error instanceof UsageError ||
      error instanceof ServerRefusal ||
      error?.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION"
    ) {
      console.error(`floorline: ${error.message}${error instanceof ServerRefusal ? "" : `\n\n${USAGE}`}`);
      process.exit(2);
    }
    console.error(`floorline: ${error?.message ?? error}`);
    process.exit(1);
  },
);
