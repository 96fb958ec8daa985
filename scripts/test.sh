#!/usr/bin/env bash
# `npm test`: every check, in stages run side by side where they do not depend on each other,
# each stage's output printed whole when it ends and every stage's duration at the end.
#   1. static (typecheck, Biome, drizzle-kit check, schema vs migrations) | build (the app and
#      the SDK, once, for every stage that starts them) | unit
#   2. integration on PGlite | integration on PostgreSQL (when TEST_DATABASE_URL is set) |
#      sdk | e2e (Playwright in Debian's Chromium against the built app) | Python SDK (pytest)
# docs/testing.md says what each stage holds and what it costs. TEST_STAGES="unit e2e" runs
# only the stages named (and the build, a no-op when it is current).
set -uo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
# Logs are read as text, in CI and in .floorline/test-logs/: no colour codes.
export NO_COLOR=1
bin=node_modules/.bin
logs=.floorline/test-logs
rm -rf "$logs"
mkdir -p "$logs"

selected() { [ -z "${TEST_STAGES:-}" ] || [[ " $TEST_STAGES " == *" $1 "* ]]; }

declare -A started pid
BACKGROUND_STAGES="integration-pglite integration-postgres sdk python"
failed=()
summary=()

# start NAME COMMAND...: runs the command in the background, its output kept in $logs/NAME.log.
start() {
  local name=$1
  shift
  [ "$name" = build ] || selected "$name" || return 0
  started[$name]=$(date +%s)
  # `times` then prints the CPU the stage's processes used (those waited for: not PostgreSQL's).
  (
    # e2e is the longest stage and the one whose tests wait on a browser: the stages beside it
    # take the CPU it leaves. On a slow machine they took it from e2e, whose tests timed out.
    if [[ " $BACKGROUND_STAGES " == *" $name "* ]]; then renice -n 10 -p "$BASHPID" >/dev/null; fi
    "$@" </dev/null >"$logs/$name.log" 2>&1
    status=$?
    times >"$logs/$name.cpu"
    exit $status
  ) &
  pid[$name]=$!
}

# cpu NAME: the CPU seconds (user and system) the stage's processes used.
cpu() {
  tail -n 1 "$logs/$1.cpu" 2>/dev/null |
    awk '{ t = 0; for (i = 1; i <= NF; i++) { split($i, p, "m"); t += p[1] * 60 + p[2] } printf "%d", t }'
}

# finish NAME...: waits for each stage, prints its output and notes its duration and result.
finish() {
  local name status seconds
  for name in "$@"; do
    [ -n "${pid[$name]:-}" ] || continue
    status=0
    wait "${pid[$name]}" || status=$?
    seconds=$(($(date +%s) - started[$name]))
    echo "== $name ($seconds s, cpu $(cpu "$name") s, $([ "$status" -eq 0 ] && echo passed || echo "FAILED: exit $status"))"
    cat "$logs/$name.log"
    summary+=("$(printf '%-22s %5d s  cpu %5d s  %s' "$name" "$seconds" "$(cpu "$name")" "$([ "$status" -eq 0 ] && echo passed || echo FAILED)")")
    [ "$status" -eq 0 ] || failed+=("$name")
    unset "pid[$name]"
  done
}

report() {
  echo
  echo "== stages (total $(($(date +%s) - run_started)) s)"
  printf '%s\n' "${summary[@]}"
  if [ ${#failed[@]} -gt 0 ]; then
    # The end of a failed stage's log again, where a reader of the last lines looks first.
    for name in "${failed[@]}"; do
      echo
      echo "== the end of $name's log"
      tail -n 80 "$logs/$name.log"
    done
    echo
    echo "FAILED: ${failed[*]} (logs in $logs/)"
    exit 1
  fi
}

static_checks() {
  set -e
  echo "-- typecheck"
  $bin/tsc --noEmit
  echo "-- format, lint and layers (Biome)"
  $bin/biome ci --colors=off .
  echo "-- migration history (drizzle-kit check)"
  $bin/drizzle-kit check
  echo "-- schema and migrations agree"
  bash scripts/check-schema.sh
}

build() {
  set -e
  echo "-- the SDK (sdk/typescript/dist)"
  node sdk/typescript/build.mjs
  echo "-- the app (next build, when the sources changed)"
  node --import tsx/esm scripts/build.ts
}

python_tests() {
  # Exit 5 is pytest finding no tests (a checkout without them), not a failure.
  local status=0
  (cd sdk/python && python3 -m pytest -q -p no:cacheprovider) || status=$?
  [ "$status" -eq 0 ] || [ "$status" -eq 5 ]
}

postgres_integration() {
  if [ -z "${TEST_DATABASE_URL:-}" ]; then
    echo "skipped: TEST_DATABASE_URL is not set"
    return 0
  fi
  $bin/vitest run --project integration-postgres --maxWorkers=2
}

run_started=$(date +%s)
# The stages below use the build made here; the SDK's test setup then builds nothing again.
export FLOORLINE_TEST_BUILT=1

start static static_checks
start build build
start unit $bin/vitest run --project unit
finish build
if [ ${#failed[@]} -gt 0 ]; then
  finish static unit
  report
fi

# Longest first: each stage is one process tree, and the two cores are shared among them.
start e2e $bin/playwright test
# Two files at a time in each: a file waits on its database and its servers much of the time,
# and one worker per stage left a third of the machine idle (the stages' CPU against their time).
start integration-pglite env -u TEST_DATABASE_URL $bin/vitest run --project integration --maxWorkers=2
start integration-postgres postgres_integration
finish static unit
start sdk $bin/vitest run --project sdk
start python python_tests
finish sdk python integration-postgres integration-pglite e2e
report
