#!/usr/bin/env bash
# `npm test`: typecheck, Biome (format, lint, the layers in biome.json), unit, integration
# on PGlite, integration on PostgreSQL (when TEST_DATABASE_URL is set), then Playwright
# end-to-end against the built app in Debian's Chromium, then the Python SDK's pytest suite.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1

echo "== typecheck"
node_modules/.bin/tsc --noEmit
echo "== format, lint and layers (Biome)"
node_modules/.bin/biome ci .
echo "== migration history (drizzle-kit check)"
node_modules/.bin/drizzle-kit check
echo "== schema and migrations agree"
bash scripts/check-schema.sh
echo "== unit"
node_modules/.bin/vitest run --project unit
echo "== sdk (built, then tested as packed)"; node_modules/.bin/vitest run --project sdk
echo "== integration (PGlite)"
env -u TEST_DATABASE_URL node_modules/.bin/vitest run --project integration
if [ -n "${TEST_DATABASE_URL:-}" ]; then
  echo "== integration (PostgreSQL)"
  node_modules/.bin/vitest run --project integration
else
  echo "== integration (PostgreSQL) skipped: TEST_DATABASE_URL is not set"
fi
echo "== e2e"
node_modules/.bin/playwright test
echo "== Python SDK (pytest)"
# Exit 5 is pytest finding no tests (a checkout without them), not a failure.
status=0
(cd sdk/python && python3 -m pytest -q -p no:cacheprovider) || status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 5 ]; then exit "$status"; fi
