#!/usr/bin/env bash
# `make cluster`: a three-node JetStream cluster on loopback with replicated streams, local PostgreSQL
# (unless DATABASE_URL is given), two pipeline workers owning half of the partitions each, the API and the
# webhook worker, in the foreground. Ctrl-C drains everything; `make cluster-stop` stops the NATS nodes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
. "$here/lib.sh"

if [ -f .env ]; then set -a; . ./.env; set +a; fi
NATS_URL=$(bash "$here/start-cluster.sh"); export NATS_URL
if [ -z "${DATABASE_URL:-}" ]; then DATABASE_URL=$(bash "$here/start-postgres.sh"); export DATABASE_URL; fi
partitions=${EVENT_PARTITIONS:-16}
half=$((partitions / 2))

node --import tsx scripts/migrate.ts
# The cluster elects its JetStream leader within seconds of starting: retry the setup meanwhile.
for i in $(seq 1 30); do
  node --import tsx scripts/nats-setup.ts --replicas 3 --partitions "$partitions" && break
  [ "$i" = 30 ] && exit 1
  sleep 1
done

log "NATS_URL=$NATS_URL"
log "DATABASE_URL=$DATABASE_URL"
log "workers: partitions 0-$((half - 1)) (health :9464) and $half-$((partitions - 1)) (health :9466); API on :${PORT:-8080}"

set -m
PIPELINE_PARTITIONS="0-$((half - 1))" PIPELINE_HEALTH_PORT=9464 pipeline_daemon &
w1=$!
PIPELINE_PARTITIONS="$half-$((partitions - 1))" PIPELINE_HEALTH_PORT=9466 pipeline_daemon &
w2=$!
api_daemon &
api=$!
webhook_daemon &
wh=$!
set +m
pids=("$w1" "$w2" "$api" "$wh")

stop() {
  trap - INT TERM
  kill -TERM "${pids[@]}" 2>/dev/null || true
  rc=0
  for p in "${pids[@]}"; do wait "$p" || { s=$?; [ "$s" -gt "$rc" ] && rc=$s; }; done
  exit "$rc"
}
trap stop INT TERM
set +e
wait -n "${pids[@]}"
status=$?
trap - INT TERM
kill -TERM "${pids[@]}" 2>/dev/null
wait
exit "$status"
