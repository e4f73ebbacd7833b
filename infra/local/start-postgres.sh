#!/usr/bin/env bash
# Starts a PostgreSQL cluster under $DATA_DIR/pg on loopback, as an unprivileged account when run as
# root (initdb refuses root). Creates it on first run with a generated password. Idempotent.
# Prints the connection URL on stdout.
# Env: DATA_DIR (default ./.data), PG_PORT (default 5433), PG_DB (default attribution),
#      PG_FAST=1 turns fsync off (tests only).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
data_dir=$(mkdir -p "${DATA_DIR:-./.data}" && cd "${DATA_DIR:-./.data}" && pwd)
port=${PG_PORT:-5433}
dir="$data_dir/pg"
bindir=$(pg_bindir) || { log "PostgreSQL server binaries not found; run infra/local/install-deps.sh"; exit 1; }
user=$(pg_os_user)
# As root, the server runs as an unprivileged account that must reach the data directory. When a parent
# directory is closed to it (a checkout under /root, say), the cluster lives in /var/tmp and .data/pg
# links to it.
if [ "$(id -u)" = 0 ] && ! runuser -u "$user" -- test -x "$data_dir" 2>/dev/null; then
  real=$(pg_outside_dir "$data_dir")
  mkdir -p "$real"
  [ -L "$dir" ] || { [ -d "$dir" ] && rmdir "$dir" 2>/dev/null; ln -sfn "$real" "$dir"; }
  log "$data_dir is not reachable by the '$user' account: the cluster lives in $real"
fi
dir=$(mkdir -p "$dir" && cd "$dir" && pwd -P)
[ "$(id -u)" = 0 ] && chown "$user" "$dir" && chmod 700 "$dir"

if [ ! -f "$dir/cluster/PG_VERSION" ]; then
  pw=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
  printf '%s' "$pw" >"$dir/password"
  chmod 600 "$dir/password"
  [ "$(id -u)" = 0 ] && chown "$user" "$dir/password"
  as_pg_user "$bindir/initdb" -D "$dir/cluster" -U attrib --pwfile="$dir/password" \
    --auth-local=scram-sha-256 --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { log "initdb failed; see $dir/initdb.log"; exit 1; }
fi
pw=$(cat "$dir/password")

if as_pg_user "$bindir/pg_ctl" -D "$dir/cluster" status >/dev/null 2>&1; then
  log "PostgreSQL already running ($dir/cluster)"
else
  # A batch takes an advisory lock per person and identity key it touches: 5,000 new buyers need some 20,000, over
  # the default lock table (64 per connection). docs/operations.md, PostgreSQL.
  opts="-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories='$dir' -c max_connections=200 -c max_locks_per_transaction=512"
  [ "${PG_FAST:-0}" = 1 ] && opts="$opts -c fsync=off -c full_page_writes=off"
  as_pg_user "$bindir/pg_ctl" -D "$dir/cluster" -l "$dir/postgres.log" -o "$opts" -w -t 60 start >/dev/null \
    || { log "PostgreSQL did not start; see $dir/postgres.log"; exit 1; }
  log "PostgreSQL started on 127.0.0.1:$port (log: $dir/postgres.log)"
fi
db=${PG_DB:-attribution}
# Create the application database once.
if ! PGPASSWORD=$pw "$bindir/psql" -h 127.0.0.1 -p "$port" -U attrib -d postgres -tAc \
  "select 1 from pg_database where datname='$db'" | grep -q 1; then
  PGPASSWORD=$pw "$bindir/psql" -h 127.0.0.1 -p "$port" -U attrib -d postgres -qc "create database $db" >/dev/null
fi
# Clients reach the server by its Unix socket, which costs both sides less CPU per statement than loopback TCP
# (docs/decisions.md, Operations); the host name stays for tools that read the URL but not its `host` parameter.
url="postgres://attrib:$pw@127.0.0.1:$port/$db?host=$(url_encode "$dir")"
# The CLIs find the running local database through this file when DATABASE_URL is not set.
(umask 077 && printf '%s\n' "$url" >"$data_dir/pg.url")
echo "$url"
