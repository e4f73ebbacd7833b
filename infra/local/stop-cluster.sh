#!/usr/bin/env bash
# Stops the cluster nodes started by start-cluster.sh (all, or CLUSTER_NODE=<1-3>; SIGNAL=KILL to kill).
set -uo pipefail
data_dir=${DATA_DIR:-./.data}
for n in 1 2 3; do
  [ -n "${CLUSTER_NODE:-}" ] && [ "$CLUSTER_NODE" != "$n" ] && continue
  pidfile="$data_dir/cluster/n$n/nats.pid"
  [ -f "$pidfile" ] || continue
  pid=$(cat "$pidfile")
  kill "-${SIGNAL:-TERM}" "$pid" 2>/dev/null
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -f "$pidfile"
done
