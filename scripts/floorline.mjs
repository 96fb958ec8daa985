#!/usr/bin/env node
// `npm run floorline -- <command>`: the first API key and operator, and key management, written
// straight to the database (the one the server uses: DATABASE_URL, else the embedded folder
// FLOORLINE_DATA_DIR or .floorline/data), with the migrations applied first. Plain Node ESM so
// it runs from a production install; the credential code is the app's own (lib/auth/credentials.mjs).
import { mkdirSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { generateApiKey, hashPassword, KEY_SCOPES, MIN_PASSWORD_LENGTH, ROLES } from "../lib/auth/credentials.mjs";
import { acquireDataLock, DataFolderLockedError } from "../db/data-lock.mjs";

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const MIGRATIONS_FOLDER = path.join(root, "drizzle");
// The same number db/index.ts takes: migrations from the CLI and from servers never overlap.
const MIGRATION_LOCK_KEY = 0x466c6f6f;

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

async function openDatabase() {
  const url = process.env.DATABASE_URL || undefined;
  if (url) {
    const { default: postgres } = await import("postgres");
    const { drizzle } = await import("drizzle-orm/postgres-js");
    const { migrate } = await import("drizzle-orm/postgres-js/migrator");
    const client = postgres(url, { max: 1, onnotice: () => {} });
    await client`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    try {
      await migrate(drizzle({ client }), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await client`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
    }
    return {
      query: async (text, params = []) => [...(await client.unsafe(text, params))],
      close: () => client.end({ timeout: 5 }),
    };
  }
  const dataDir = process.env.FLOORLINE_DATA_DIR || path.join(process.cwd(), ".floorline", "data");
  const release = lockDataFolder(dataDir);
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  if (!dataDir.includes("://")) mkdirSync(dataDir, { recursive: true });
  const client = new PGlite(dataDir);
  await client.waitReady;
  await migrate(drizzle({ client }), { migrationsFolder: MIGRATIONS_FOLDER });
  return {
    query: async (text, params = []) => (await client.query(text, params)).rows,
    close: async () => {
      await client.close();
      await release();
    },
  };
}

// PGlite has no lock between processes: a server and the CLI on one folder would corrupt it.
// The folder's lock refuses (with who holds it) while a server owns the folder.
function lockDataFolder(dataDir) {
  if (dataDir.includes("://")) return async () => {};
  const lock = acquireDataLock(dataDir, { command: "floorline CLI" });
  return async () => lock.release();
}

function print(json, value, text) {
  console.log(json ? JSON.stringify(value, null, 2) : text);
}

const iso = (v) => (v == null ? null : new Date(v).toISOString());

function keyRow(r) {
  return {
    id: r.id,
    name: r.name,
    scopes: typeof r.scopes === "string" ? JSON.parse(r.scopes) : r.scopes,
    created_at: iso(r.created_at),
    created_by: r.created_by ?? null,
    last_used_at: iso(r.last_used_at),
    revoked_at: iso(r.revoked_at),
  };
}

function requireName(name) {
  const trimmed = (name ?? "").trim();
  if (!trimmed || trimmed.length > 100) throw new UsageError("--name is required (1-100 characters).");
  return trimmed;
}

async function readPassword(fromStdin) {
  if (fromStdin) {
    const chunks = [];
    for await (const chunk of process.stdin) chunks.push(chunk);
    return Buffer.concat(chunks)
      .toString("utf8")
      .replace(/\r?\n$/, "");
  }
  if (!process.stdin.isTTY) throw new UsageError("No terminal to ask for a password: pass it with --password-stdin.");
  const ask = (prompt) =>
    new Promise((resolve) => {
      const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
      // Echo nothing of what is typed.
      rl._writeToOutput = (s) => {
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

async function run(argv) {
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
  const json = Boolean(values.json);
  if (values.help || !noun) return void console.log(USAGE);
  const command = `${noun} ${verb ?? ""}`.trim();
  const known = ["keys create", "keys list", "keys revoke", "operators create", "operators list"];
  if (!known.includes(command)) throw new UsageError(`Unknown command "${command}".`);

  // Validate everything before touching the database.
  let input = {};
  if (command === "keys create") {
    const scopes = [
      ...new Set(
        (values.scopes ?? "")
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ];
    const bad = scopes.filter((s) => !KEY_SCOPES.includes(s));
    if (scopes.length === 0 || bad.length > 0) {
      throw new UsageError(
        `--scopes takes one or more of ${KEY_SCOPES.join(", ")}${bad.length ? ` (not ${bad.join(", ")})` : ""}.`,
      );
    }
    input = { name: requireName(values.name), scopes };
  } else if (command === "keys revoke") {
    if (!/^[0-9a-f]{16}$/.test(arg ?? ""))
      throw new UsageError("keys revoke takes a key id (16 hex digits; see keys list).");
  } else if (command === "operators create") {
    if (!ROLES.includes(values.role)) throw new UsageError(`--role is ${ROLES.join(" or ")}.`);
    const name = requireName(values.name);
    const password = await readPassword(Boolean(values["password-stdin"]));
    if (password.length < MIN_PASSWORD_LENGTH)
      throw new UsageError(`The password needs at least ${MIN_PASSWORD_LENGTH} characters.`);
    input = { name, role: values.role, passwordHash: await hashPassword(password) };
  }

  const db = await openDatabase();
  try {
    switch (command) {
      case "keys create": {
        const key = generateApiKey();
        const [row] = await db.query(
          "insert into api_keys (id, name, scopes, secret_hash, created_by) values ($1, $2, $3::jsonb, $4, 'cli') returning *",
          [key.id, input.name, JSON.stringify(input.scopes), key.secretHash],
        );
        const created = { ...keyRow(row), key: key.key };
        print(
          json,
          created,
          `Created key ${created.name} (${created.id}) with scopes ${created.scopes.join(", ")}.\n\n  ${key.key}\n\nCopy it now: it is shown this once and stored only as a hash. Send it as "Authorization: Bearer <key>".`,
        );
        break;
      }
      case "keys list": {
        const rows = (await db.query("select * from api_keys order by created_at desc, id")).map(keyRow);
        const line = (k) =>
          `${k.id}  ${k.name.padEnd(20)} ${k.scopes.join(",").padEnd(18)} last used ${k.last_used_at ?? "never"}${k.revoked_at ? `  REVOKED ${k.revoked_at}` : ""}`;
        print(json, rows, rows.length ? rows.map(line).join("\n") : "No API keys.");
        break;
      }
      case "keys revoke": {
        const [row] = await db.query(
          "update api_keys set revoked_at = coalesce(revoked_at, now()) where id = $1 returning *",
          [arg],
        );
        if (!row) throw new UsageError(`There is no key ${arg}.`);
        print(json, keyRow(row), `Revoked key ${row.name} (${row.id}); servers refuse it from their next request.`);
        break;
      }
      case "operators create": {
        const [row] = await db.query(
          "insert into operators (name, role, password_hash) values ($1, $2, $3) on conflict do nothing returning id, name, role, created_at",
          [input.name, input.role, input.passwordHash],
        );
        if (!row) throw new UsageError(`An operator named ${input.name} already exists.`);
        const created = { id: row.id, name: row.name, role: row.role, created_at: iso(row.created_at) };
        print(json, created, `Created ${created.role} ${created.name}; sign in at /sign-in.`);
        break;
      }
      case "operators list": {
        const rows = await db.query("select id, name, role, created_at, disabled_at from operators order by name");
        const out = rows.map((r) => ({ ...r, created_at: iso(r.created_at), disabled_at: iso(r.disabled_at) }));
        print(
          json,
          out,
          out.length
            ? out.map((o) => `${o.id}  ${o.name}  ${o.role}${o.disabled_at ? "  DISABLED" : ""}`).join("\n")
            : "No operators.",
        );
        break;
      }
    }
  } finally {
    await db.close();
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
