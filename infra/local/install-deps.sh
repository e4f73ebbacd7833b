#!/usr/bin/env bash
# Installs what is missing for local runs and tests: nats-server and PostgreSQL 15 from Debian's
# packages, and the npm dependencies from the committed lockfile; with --browser also Debian's chromium,
# which the tracker's browser tests drive (never a browser download). Idempotent and quiet when all is there.
# Usage: install-deps.sh [--browser]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

need=()
nats_bin >/dev/null || need+=(nats-server)
pg_bindir >/dev/null || need+=(postgresql-15)
if [ "${1:-}" = "--browser" ] && [ ! -x /usr/bin/chromium ]; then need+=(chromium); fi
if [ ${#need[@]} -gt 0 ]; then
  log "installing Debian packages: ${need[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${need[@]}" >/dev/null
fi

# npm ci when node_modules is missing or older than the lockfile.
if [ ! -d "$root/node_modules" ] || [ "$root/package-lock.json" -nt "$root/node_modules/.package-lock.json" ]; then
  log "installing npm dependencies (npm ci)"
  (cd "$root" && npm ci --no-audit --no-fund)
fi
