# Shared helpers for the local-service scripts. Source it; it defines functions only.
# shellcheck shell=bash

log() { printf '[infra] %s\n' "$*" >&2; }

# The daemons as every script starts them, from the operator's build in dist/ (`npm run build`; make builds it):
# in the caller's process (run them with &), the pipeline with a young generation larger than Node's default
# (docs/operations.md, Processes).
pipeline_daemon() { exec node --enable-source-maps --max-semi-space-size=64 --min-semi-space-size=64 dist/pipeline/src/app/main.js; }
api_daemon() { exec node --enable-source-maps dist/query-api/src/app/server.js; }
webhook_daemon() { exec node --enable-source-maps dist/webhook-worker/src/app/main.js; }

# Percent-encodes a value for a URL's query (a directory path, say).
url_encode() {
  local LC_ALL=C s=$1 out='' c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case $c in [A-Za-z0-9._~/-]) out+=$c ;; *) out+=$(printf '%%%02X' "'$c") ;; esac
  done
  printf '%s' "$out"
}

# Run a command as root (directly or through sudo), for package installation only.
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "need root to run: $*"; return 1; fi
}

# Debian puts nats-server in /usr/sbin, which is not always on PATH.
nats_bin() {
  command -v nats-server 2>/dev/null || { [ -x /usr/sbin/nats-server ] && echo /usr/sbin/nats-server; } || return 1
}

# Debian's postgresql-15 puts initdb and pg_ctl in its versioned lib directory, outside PATH.
pg_bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
  done
  if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then dirname "$(command -v initdb)"; return 0; fi
  return 1
}

# PostgreSQL refuses to run as root: pick (or create) an unprivileged account for the server.
pg_os_user() {
  if [ "$(id -u)" != 0 ]; then id -un; return 0; fi
  if id postgres >/dev/null 2>&1; then echo postgres; return 0; fi
  if ! id attrib >/dev/null 2>&1; then useradd --system --no-create-home --shell /usr/sbin/nologin attrib; fi
  echo attrib
}

# Run a command as the PostgreSQL account (a no-op wrapper when we are not root).
as_pg_user() {
  local user; user=$(pg_os_user)
  if [ "$(id -u)" = 0 ]; then runuser -u "$user" -- "$@"; else "$@"; fi
}

# Where start-postgres.sh keeps a cluster whose data directory the PostgreSQL account cannot reach (as root,
# a checkout under /root, say): one directory per data directory, named after its path.
pg_outside_prefix() { echo "/var/tmp/open-attribution-pg-"; }
pg_outside_dir() { echo "$(pg_outside_prefix)$(printf '%s' "$1" | md5sum | cut -c1-12)"; }
