#!/usr/bin/env bash
# Starts a three-node nats-server cluster with JetStream on loopback (make cluster), data under
# $DATA_DIR/cluster/n{1,2,3}. Idempotent per node. Prints the comma-separated client URLs.
# Env: DATA_DIR (default ./.data), CLUSTER_PORTS (client ports, default 4231,4232,4233),
#      CLUSTER_ROUTE_PORTS (default 6231,6232,6233). CLUSTER_NODE=<1-3> starts one node only (to restart it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
data_dir=$(mkdir -p "${DATA_DIR:-./.data}" && cd "${DATA_DIR:-./.data}" && pwd)
IFS=, read -r -a clients <<<"${CLUSTER_PORTS:-4231,4232,4233}"
IFS=, read -r -a routes <<<"${CLUSTER_ROUTE_PORTS:-6231,6232,6233}"
bin=$(nats_bin) || { log "nats-server not found; run infra/local/install-deps.sh"; exit 1; }
template="$root/infra/nats/cluster/node.conf.template"

route_list=""
for i in 0 1 2; do route_list+="nats-route://127.0.0.1:${routes[$i]}"$'\n    '; done

urls=()
for i in 0 1 2; do
  n=$((i + 1))
  urls+=("nats://127.0.0.1:${clients[$i]}")
  [ -n "${CLUSTER_NODE:-}" ] && [ "$CLUSTER_NODE" != "$n" ] && continue
  dir="$data_dir/cluster/n$n"
  mkdir -p "$dir/store"
  pidfile="$dir/nats.pid"
  if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then continue; fi
  sed -e "s|{name}|n$n|" -e "s|{host}|127.0.0.1|g" -e "s|{client_port}|${clients[$i]}|" -e "s|{route_port}|${routes[$i]}|" \
      -e "s|{store_dir}|$dir/store|" -e "s|{routes}|${route_list//$'\n'/\\n}|" "$template" >"$dir/nats.conf"
  # A session of its own, like start-nats.sh: a Ctrl-C in the caller's terminal does not reach the brokers.
  setsid nohup "$bin" -c "$dir/nats.conf" -P "$pidfile" -l "$dir/nats.log" </dev/null >/dev/null 2>&1 &
done
for i in 0 1 2; do
  n=$((i + 1))
  [ -n "${CLUSTER_NODE:-}" ] && [ "$CLUSTER_NODE" != "$n" ] && continue
  for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/${clients[$i]}") 2>/dev/null && break; sleep 0.1; done
done
log "nats cluster nodes on ${clients[*]} (logs: $data_dir/cluster/n*/nats.log)"
(IFS=,; echo "${urls[*]}")
