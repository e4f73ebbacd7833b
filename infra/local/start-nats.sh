#!/usr/bin/env bash
# Starts nats-server with JetStream on loopback, data under $DATA_DIR/nats. Idempotent: a running
# server (pid file alive) is left alone. Prints the URL on stdout.
# Env: DATA_DIR (default ./.data), NATS_PORT (default 4222).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
data_dir=$(mkdir -p "${DATA_DIR:-./.data}" && cd "${DATA_DIR:-./.data}" && pwd)
port=${NATS_PORT:-4222}
dir="$data_dir/nats"
mkdir -p "$dir/store"
pidfile="$dir/nats.pid"

if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
  log "nats-server already running (pid $(cat "$pidfile"))"
else
  bin=$(nats_bin) || { log "nats-server not found; run infra/local/install-deps.sh"; exit 1; }
  # Detached from our stdout/stderr so a caller reading our output is not held open by the server, and in a
  # session of its own (as pg_ctl starts PostgreSQL): a Ctrl-C in the terminal of `make run` reaches the daemons,
  # which drain against a broker that is still there, not the broker itself.
  setsid nohup "$bin" -a 127.0.0.1 -p "$port" -js -sd "$dir/store" -P "$pidfile" -l "$dir/nats.log" </dev/null >/dev/null 2>&1 &
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.1
  done
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { log "nats-server did not start; see $dir/nats.log"; exit 1; }
  log "nats-server started on 127.0.0.1:$port (log: $dir/nats.log)"
  # The CLIs find the running local server through this file when NATS_URL is not set.
  printf 'nats://127.0.0.1:%s\n' "$port" >"$data_dir/nats.url"
fi
echo "nats://127.0.0.1:$port"
