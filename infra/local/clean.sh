#!/usr/bin/env bash
# `make clean`: stops the local services of $DATA_DIR (default ./.data) and deletes their data, including a
# PostgreSQL cluster kept in the system's temporary area (see start-postgres.sh). Asks first unless FORCE=1.
# The test suite and the benchmarks use it to remove what they created.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
data_dir=${DATA_DIR:-./.data}
[ -e "$data_dir" ] || { log "nothing to clean: $data_dir does not exist"; exit 0; }

if [ "${FORCE:-0}" != 1 ]; then
  if [ ! -t 0 ]; then
    log "refusing to delete $data_dir without confirmation: run with FORCE=1"
    exit 1
  fi
  read -r -p "Stop the local services and delete $data_dir (events, views, stores and keys)? [y/N] " answer
  case "$answer" in y | Y | yes | YES) ;; *) log "nothing deleted"; exit 1 ;; esac
fi

DATA_DIR=$data_dir bash "$here/stop-cluster.sh"
DATA_DIR=$data_dir bash "$here/stop-all.sh"
outside=""
if [ -L "$data_dir/pg" ]; then
  outside=$(readlink -f "$data_dir/pg")
  # Only ever a directory that start-postgres.sh created.
  case "$outside" in "$(pg_outside_prefix)"*) rm -rf -- "$outside" ;; *) outside="" ;; esac
fi
rm -rf -- "$data_dir"
log "deleted $data_dir${outside:+ and $outside}"
