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
node --import tsx scripts/nats-setup.ts

log "NATS_URL=$NATS_URL"
log "DATABASE_URL=$DATABASE_URL"
log "API on http://127.0.0.1:${PORT:-8080}  (docs: /docs)   pipeline health on http://127.0.0.1:${PIPELINE_HEALTH_PORT:-9464}/readyz, webhook worker on :${WEBHOOK_HEALTH_PORT:-9465}"
log "In another shell: export DATABASE_URL='$DATABASE_URL'; npm run store -- create --name Demo --timezone UTC --currency USD"

# Each daemon in its own process group (set -m): a Ctrl-C reaches them once, forwarded by stop().
set -m
node --import tsx pipeline/src/app/main.ts &
pipeline_pid=$!
node --import tsx query-api/src/app/server.ts &
api_pid=$!
node --import tsx pipeline/src/app/webhook-worker-main.ts &
webhook_pid=$!
set +m

# On Ctrl-C / SIGTERM: let both drain and exit with the worst of their statuses.
stop() {
  trap - INT TERM
  kill -TERM "$pipeline_pid" "$api_pid" "$webhook_pid" 2>/dev/null || true
  rc=0
  wait "$pipeline_pid" || rc=$?
  wait "$api_pid" || { s=$?; [ "$s" -gt "$rc" ] && rc=$s; }
  wait "$webhook_pid" || { s=$?; [ "$s" -gt "$rc" ] && rc=$s; }
  exit "$rc"
}
trap stop INT TERM
# If either process ends on its own, stop the other and exit with the first one's status.
set +e
wait -n "$pipeline_pid" "$api_pid" "$webhook_pid"
status=$?
trap - INT TERM
kill -TERM "$pipeline_pid" "$api_pid" "$webhook_pid" 2>/dev/null
wait
exit "$status"
