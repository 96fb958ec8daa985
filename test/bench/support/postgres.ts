import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { dropScratchDatabase } from "../../support/scratch-database";

export interface BenchDatabase {
  name: string;
  url: string;
  drop: () => Promise<void>;
}

/** The server the benches may create databases on: BENCH_DATABASE_URL, else TEST_DATABASE_URL. */
export function adminUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string | null {
  return env.BENCH_DATABASE_URL || env.TEST_DATABASE_URL || null;
}

/** Null when the server answers; otherwise why not, for a one-line message. */
export async function unreachableReason(adminUrl: string): Promise<string | null> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {}, connect_timeout: 5 });
  try {
    await admin`select 1`;
    return null;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await admin.end({ timeout: 1 }).catch(() => {});
  }
}

/** A fresh, empty database on the admin URL's server; `drop()` removes it even if connections linger (test/support/scratch-database.ts). */
export async function createDatabase(adminUrl: string, prefix: string): Promise<BenchDatabase> {
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => dropScratchDatabase(adminUrl, name),
  };
}

/** A database of that name on the admin URL's server, created when absent and never dropped here. */
export async function keptDatabase(adminUrl: string, name: string): Promise<BenchDatabase> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const [found] = await admin`select 1 from pg_database where datname = ${name}`;
    if (!found) await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: async () => {} };
}
