#!/usr/bin/env bash
# Makes a second PostgreSQL 15 cluster on this machine a streaming replica of the main one
# (`pg_basebackup -R` from 127.0.0.1:5432), for the read-replica tests. Idempotent: a replica
# that is already streaming is left as it is. Prints the replica's URL for the test
# database (TEST_REPLICA_URL). Needs root; starts the main cluster first if needed.
# Nothing on the main cluster changes except one replication role; no replication slot is
# made, so a stopped replica never makes the main cluster keep WAL.
set -euo pipefail
source "$(dirname "$0")/pg-role.sh"
PG_VERSION=15
CLUSTER=replica
PORT="${REPLICA_PORT:-5433}"
ROLE=floorline_replicator
PASSWORD=floorline_replicator
cd "$(dirname "$0")/.."

primary_url="$(bash scripts/postgres-up.sh)"
replica_url="$(echo "$primary_url" | sed "s#@127.0.0.1:5432/#@127.0.0.1:$PORT/#")"

ensure_role "$ROLE" "$PASSWORD" "replication login"

# The read-replica test pauses replay to show where reads go; the functions are the
# superuser's unless granted (in the test role's database; the grant replicates).
test_db="${primary_url##*/}"
test_role="$(echo "$primary_url" | sed -E 's#^postgres://([^:]+):.*#\1#')"
su postgres -c "psql -d '$test_db' -qtA" >&2 <<SQL
grant execute on function pg_wal_replay_pause() to $test_role;
grant execute on function pg_wal_replay_resume() to $test_role;
SQL

# A standby that is streaming: one left stopped for long finds the WAL it needs removed from
# the primary (no slot keeps it) and can never catch up, so it counts as broken.
streaming() {
  su postgres -c "psql -p $PORT -qtAc \"select pg_is_in_recovery() and exists (select from pg_stat_wal_receiver where status = 'streaming')\"" 2>/dev/null | grep -q '^t$'
}

if pg_lsclusters -h | grep -q "^$PG_VERSION $CLUSTER "; then
  if ! pg_lsclusters -h | grep -q "^$PG_VERSION $CLUSTER .* online"; then
    pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" "$CLUSTER" start >&2 || true
  fi
  for _ in $(seq 1 20); do
    streaming && break
    sleep 0.5
  done
  if streaming; then
    # A test that stopped half-way may have left replay paused.
    su postgres -c "psql -p $PORT -qtAc 'select pg_wal_replay_resume()'" >/dev/null 2>&1 || true
    echo "$replica_url"
    exit 0
  fi
  echo "== the $CLUSTER cluster is not a streaming replica: making it again" >&2
  pg_dropcluster --stop "$PG_VERSION" "$CLUSTER" >&2
fi

pg_createcluster "$PG_VERSION" "$CLUSTER" -p "$PORT" >&2
# --checkpoint=fast: the default spread checkpoint made the base backup wait about 90 s on an
# idle primary.
data_dir="$(pg_lsclusters -h | awk -v v="$PG_VERSION" -v c="$CLUSTER" '$1 == v && $2 == c { print $6 }')"
find "$data_dir" -mindepth 1 -delete
su postgres -c "PGPASSWORD='$PASSWORD' pg_basebackup -h 127.0.0.1 -p 5432 -U $ROLE -D '$data_dir' -R -X stream --checkpoint=fast" >&2
pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" "$CLUSTER" start >&2
for _ in $(seq 1 60); do
  streaming && break
  sleep 0.5
done
if ! streaming; then
  echo "the $CLUSTER cluster on port $PORT did not come up as a streaming standby" >&2
  exit 1
fi
echo "$replica_url"
