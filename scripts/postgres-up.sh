#!/usr/bin/env bash
# Starts the machine's PostgreSQL 15 (installing it if missing) and makes sure the test
# role and database exist. Prints the TEST_DATABASE_URL to use. Needs root.
set -euo pipefail
source "$(dirname "$0")/pg-role.sh"
PG_VERSION=15
ROLE=floorline
PASSWORD=floorline
DB=floorline_test

if [ ! -x "/usr/lib/postgresql/$PG_VERSION/bin/postgres" ]; then
  apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "postgresql-$PG_VERSION" >&2
fi
if ! pg_lsclusters -h 2>/dev/null | grep -q "^$PG_VERSION main"; then
  pg_createcluster "$PG_VERSION" main >&2
fi
if ! pg_lsclusters -h | grep -q "^$PG_VERSION main .* online"; then
  pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" main start >&2
fi
for _ in $(seq 1 30); do
  su postgres -c "psql -qtAc 'select 1'" >/dev/null 2>&1 && break
  sleep 1
done
ensure_role "$ROLE" "$PASSWORD" "login createdb"
if ! su postgres -c "psql -qtAc \"select 1 from pg_database where datname = '$DB'\"" | grep -q 1; then
  su postgres -c "createdb -O $ROLE $DB" >&2
fi
echo "postgres://$ROLE:$PASSWORD@127.0.0.1:5432/$DB"
