#!/usr/bin/env bash
# Makes a second PostgreSQL 15 cluster on this machine a streaming replica of the main one
# (`pg_basebackup -R` from 127.0.0.1:5432), for the read-replica tests. Idempotent: a replica
# that is already streaming is left as it is. Prints the replica's URL for the test
# database (TEST_REPLICA_URL). Needs root; starts the main cluster first if needed.
# Nothing on the main cluster changes except one replication role; no replication slot is
# made, so a stopped replica never makes the main cluster keep WAL.
set -euo pipefail
PG_VERSION=15
CLUSTER=replica
PORT="${REPLICA_PORT:-5433}"
ROLE=floorline_replicator
PASSWORD=floorline_replicator
cd "$(dirname "$0")/.."

primary_url="$(bash scripts/postgres-up.sh)"
replica_url="$(echo "$primary_url" | sed "s#@127.0.0.1:5432/#@127.0.0.1:$PORT/#")"

su postgres -c "psql -qtA" >&2 <<SQL
do \$\$ begin
  if not exists (select from pg_roles where rolname = '$ROLE') then
    create role $ROLE replication login password '$PASSWORD';
  end if;
end \$\$;
SQL

in_recovery() {
  su postgres -c "psql -p $PORT -qtAc 'select pg_is_in_recovery()'" 2>/dev/null | grep -q '^t$'
}

if pg_lsclusters -h | grep -q "^$PG_VERSION $CLUSTER "; then
  if ! pg_lsclusters -h | grep -q "^$PG_VERSION $CLUSTER .* online"; then
    pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" "$CLUSTER" start >&2 || true
  fi
  for _ in $(seq 1 20); do
    in_recovery && break
    sleep 0.5
  done
  if in_recovery; then
    echo "$replica_url"
    exit 0
  fi
  echo "== the $CLUSTER cluster is not a working replica: making it again" >&2
  pg_dropcluster --stop "$PG_VERSION" "$CLUSTER" >&2
fi

pg_createcluster "$PG_VERSION" "$CLUSTER" -p "$PORT" >&2
data_dir="$(pg_lsclusters -h | awk -v v="$PG_VERSION" -v c="$CLUSTER" '$1 == v && $2 == c { print $6 }')"
find "$data_dir" -mindepth 1 -delete
su postgres -c "PGPASSWORD='$PASSWORD' pg_basebackup -h 127.0.0.1 -p 5432 -U $ROLE -D '$data_dir' -R -X stream" >&2
pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" "$CLUSTER" start >&2
for _ in $(seq 1 60); do
  in_recovery && break
  sleep 0.5
done
if ! in_recovery; then
  echo "the $CLUSTER cluster on port $PORT did not come up as a standby" >&2
  exit 1
fi
echo "$replica_url"
