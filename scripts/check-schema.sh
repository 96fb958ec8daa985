#!/usr/bin/env bash
# Fails when db/schema/* and the migrations in drizzle/ disagree: `drizzle-kit check` only
# checks that the migration history is consistent, so a column added to the schema without
# `drizzle-kit generate` would pass it. Here drizzle-kit generates into a copy of drizzle/,
# and any file it writes or changes there is a migration the schema needs and nobody made.
set -euo pipefail
cd "$(dirname "$0")/.."

copy="$(mktemp -d)"
trap 'rm -rf "$copy"' EXIT
cp -R drizzle "$copy/drizzle"

# drizzle-kit reads --out relative to the working directory, even when it is absolute, and
# exits 0 on some failures: its output is kept to say what went wrong. The flags repeat
# drizzle.config.ts (a config file and --out cannot be given together).
out="$(realpath --relative-to=. "$copy/drizzle")"
if ! log="$(node_modules/.bin/drizzle-kit generate --dialect postgresql --schema ./db/schema/index.ts \
  --out "$out" --name schema_check </dev/null 2>&1)"; then
  echo "$log"
  echo "check-schema: drizzle-kit generate failed" >&2
  exit 1
fi

if ! difference="$(diff -r drizzle "$copy/drizzle")"; then
  echo "$difference"
  echo "check-schema: the schema differs from the migrations; run drizzle-kit generate --name <what>" >&2
  exit 1
fi
if ! grep -q "No schema changes" <<<"$log"; then
  echo "$log"
  echo "check-schema: drizzle-kit did not report the schema unchanged" >&2
  exit 1
fi
echo "schema and migrations agree"
