#!/bin/sh
# The stand-in postgres image's entrypoint: on an empty data directory, initdb with the superuser
# POSTGRES_USER (default postgres) and POSTGRES_PASSWORD, accept password logins from any address,
# and create POSTGRES_DB; then run the command (postgres by default) in the foreground.
set -eu
if [ "${1:-}" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  user=${POSTGRES_USER:-postgres}
  db=${POSTGRES_DB:-$user}
  [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "docker-entrypoint: set POSTGRES_PASSWORD" >&2; exit 1; }
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb -D "$PGDATA" --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "$db" != postgres ]; then
    psql -v ON_ERROR_STOP=1 -q --username="$user" --dbname=postgres --set=db="$db" <<'SQL'
CREATE DATABASE :"db";
SQL
  fi
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "docker-entrypoint: initialised $PGDATA" >&2
fi
exec "$@"
