// `npm run floorline -- <command>`: the first API key and operator, and key management, written
// straight to the database (the one the server uses: DATABASE_URL, else the embedded folder
// FLOORLINE_DATA_DIR or .floorline/data), with the migrations applied first. It opens the
// database and calls the query layer the way the app does (db/index.ts, db/queries/access.ts);
// run with the `react-server` condition, as the server code it imports expects.
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { KEY_SCOPES, type KeyScope, MIN_PASSWORD_LENGTH, ROLES, type Role } from "../lib/auth/credentials";
import type { ApiKeyWire } from "../lib/schemas/access";
import { DataFolderLockedError } from "../db/data-lock";
import { closeDb, openDatabase, setHandle } from "../db/index";
import { configFromEnv } from "../db/config";
import { createApiKey, createOperator, listApiKeys, listOperators, revokeApiKey } from "../db/queries/access";

const USAGE = `Usage: npm run floorline -- <command> [options]

  keys create --name NAME --scopes ingest,read,admin   create an API key (printed once)
  keys list                                            list keys (never their secrets)
  keys revoke ID                                       revoke a key at once
  operators create --name NAME --role viewer|admin     create a dashboard operator
        [--password-stdin]                             read the password from stdin (else prompted)
  operators list                                       list operators

  --json   print JSON for scripts

The database is DATABASE_URL, else the embedded folder FLOORLINE_DATA_DIR (default
.floorline/data). Stop a server that uses the embedded folder first: one process per folder.`;

class UsageError extends Error {}

const COMMANDS = ["keys create", "keys list", "keys revoke", "operators create", "operators list"] as const;
type Command = (typeof COMMANDS)[number];

/** What a command needs, validated before the database is touched. */
type Input =
  | { command: "keys create"; name: string; scopes: KeyScope[] }
  | { command: "keys revoke"; id: string }
  | { command: "operators create"; name: string; role: Role; password: string }
  | { command: "keys list" | "operators list" };

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
    default:
      return { command } satisfies Input;
  }
}

const keyLine = (k: ApiKeyWire) =>
  `${k.id}  ${k.name.padEnd(20)} ${k.scopes.join(",").padEnd(18)} last used ${k.last_used_at ?? "never"}${k.revoked_at ? `  REVOKED ${k.revoked_at}` : ""}`;

async function execute(input: Input, json: boolean): Promise<void> {
  switch (input.command) {
    case "keys create": {
      const created = await createApiKey({ name: input.name, scopes: input.scopes, createdBy: "cli" });
      print(
        json,
        created,
        `Created key ${created.name} (${created.id}) with scopes ${created.scopes.join(", ")}.\n\n  ${created.key}\n\nCopy it now: it is shown this once and stored only as a hash. Send it as "Authorization: Bearer <key>".`,
      );
      return;
    }
    case "keys list": {
      const keys = await listApiKeys();
      print(json, keys, keys.length ? keys.map(keyLine).join("\n") : "No API keys.");
      return;
    }
    case "keys revoke": {
      const key = await revokeApiKey(input.id);
      if (!key) throw new UsageError(`There is no key ${input.id}.`);
      print(json, key, `Revoked key ${key.name} (${key.id}); servers refuse it from their next request.`);
      return;
    }
    case "operators create": {
      const created = await createOperator({ name: input.name, role: input.role, password: input.password });
      if (!created) throw new UsageError(`An operator named ${input.name} already exists.`);
      print(json, created, `Created ${created.role} ${created.name}; sign in at /sign-in.`);
      return;
    }
    case "operators list": {
      const list = await listOperators();
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
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [noun, verb, arg] = positionals;
  if (values.help || !noun) return void console.log(USAGE);
  const command = `${noun} ${verb ?? ""}`.trim();
  if (!isCommand(command)) throw new UsageError(`Unknown command "${command}".`);
  const input = await validate(command, values, arg);

  // The migrations run as the database opens; the embedded folder's lock refuses (naming
  // the holder) while a server owns it.
  setHandle(openDatabase(configFromEnv()));
  try {
    await execute(input, Boolean(values.json));
  } finally {
    await closeDb();
  }
}

run(process.argv.slice(2)).then(
  () => process.exit(0),
  (error) => {
    if (error instanceof DataFolderLockedError) {
      console.error(`floorline: ${error.message}`);
      process.exit(3);
    }
    if (error instanceof UsageError || error?.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      console.error(`floorline: ${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    console.error(`floorline: ${error?.message ?? error}`);
    process.exit(1);
  },
);
