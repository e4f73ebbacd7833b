#!/usr/bin/env bash
# `make run`: local nats-server and PostgreSQL under ./.data unless NATS_URL / DATABASE_URL are given,
# migrations, stream and consumers, then the pipeline daemon, the query API and the webhook worker in the
# foreground.
# Ctrl-C (or SIGTERM) drains both and exits. With --migrate-only it stops after the migrations.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
. "$here/lib.sh"

if [ -f .env ]; then set -a; . ./.env; set +a; fi
if [ -z "${NATS_URL:-}" ]; then NATS_URL=$(bash "$here/start-nats.sh"); export NATS_URL; fi
if [ -z "${DATABASE_URL:-}" ]; then DATABASE_URL=$(bash "$here/start-postgres.sh"); export DATABASE_URL; fi

node --import tsx scripts/migrate.ts
[ "${1:-}" = --migrate-only ] && exit 0
# The daemons run from the operator's build (make run builds it when a source changed).
[ -f dist/build.json ] || node --import tsx scripts/build-daemons.ts
node --import tsx scripts/nats-setup.ts

log "NATS_URL=$NATS_URL"
log "DATABASE_URL=$DATABASE_URL"
log "API on http://127.0.0.1:${PORT:-8080}  (docs: /docs)   pipeline health on http://127.0.0.1:${PIPELINE_HEALTH_PORT:-9464}/readyz, webhook worker on :${WEBHOOK_HEALTH_PORT:-9465}"
log "In another shell: npm run store -- create --name Demo --timezone UTC --currency USD"
log "Dashboard on http://127.0.0.1:${PORT:-8080}/dashboard"

# Each daemon in its own process group (set -m): a Ctrl-C reaches them once, forwarded by on_signal. They
# drain and exit by themselves if this script is killed outright (EXIT_WITH_PARENT).
export EXIT_WITH_PARENT=true
set -m
pipeline_daemon &
pids=($!)
api_daemon &
pids+=($!)
webhook_daemon &
pids+=($!)
# On a database without stores: a demo store with a month of data, and the dashboard's URL and key. Not a
# daemon: it ends by itself and its end stops nothing.
node --import tsx scripts/first-run.ts &
helper=$!
set +m

# Ctrl-C / SIGTERM / a closed terminal: forward SIGTERM (drain). A second signal is forwarded too (the
# daemons then exit at once); the trap stays in place until every daemon is gone.
stopping=0
on_signal() {
  stopping=1
  kill -TERM "${pids[@]}" 2>/dev/null || true
  kill -TERM "$helper" 2>/dev/null || true
}
trap on_signal INT TERM HUP

set +e
# The first daemon to end (or a signal) starts the stop of the others.
wait -n "${pids[@]}"
first=$?
[ "$stopping" = 1 ] || { stopping=1; kill -TERM "${pids[@]}" 2>/dev/null; }
kill -TERM "$helper" 2>/dev/null
# Wait for every daemon; a trapped signal interrupts `wait`, so wait again while it lives.
rc=0
for pid in "${pids[@]}"; do
  while kill -0 "$pid" 2>/dev/null; do wait "$pid"; done
  wait "$pid"
  s=$?
  [ "$s" = 127 ] && s=0 # already reaped by `wait -n`: its status is $first
  [ "$s" -gt "$rc" ] && rc=$s
done
[ "$first" -gt "$rc" ] && [ "$first" -lt 128 ] && rc=$first
exit "$rc"
