# Sourced by postgres-up.sh and replica-up.sh: makes a role when it does not exist yet.
# ensure_role NAME PASSWORD ATTRIBUTES (e.g. "login createdb", "replication login")
ensure_role() {
  su postgres -c "psql -qtA" >&2 <<SQL
do \$\$ begin
  if not exists (select from pg_roles where rolname = '$1') then
    create role $1 $3 password '$2';
  end if;
end \$\$;
SQL
}
