#!/usr/bin/env bash
# Stops the local nats-server and PostgreSQL started by start-*.sh under $DATA_DIR (default ./.data).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
data_dir=${DATA_DIR:-./.data}

if [ -f "$data_dir/nats/nats.pid" ]; then
  pid=$(cat "$data_dir/nats/nats.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    log "nats-server stopped"
  fi
  rm -f "$data_dir/nats/nats.pid"
fi
if [ -f "$data_dir/pg/cluster/PG_VERSION" ] && bindir=$(pg_bindir); then
  cluster=$(readlink -f "$data_dir/pg/cluster") # .data/pg may link to /var/tmp (see start-postgres.sh)
  if as_pg_user "$bindir/pg_ctl" -D "$cluster" status >/dev/null 2>&1; then
    as_pg_user "$bindir/pg_ctl" -D "$cluster" -m fast -w stop >/dev/null && log "PostgreSQL stopped"
  fi
fi
