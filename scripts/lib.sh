#!/usr/bin/env bash
# Shared helpers for scripts/start.sh and scripts/test.sh. Sourced, not run.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

ensure_node_modules() {
  if [ ! -d "$ROOT/node_modules" ] || [ "$ROOT/package-lock.json" -nt "$ROOT/node_modules/.package-lock.json" ]; then
    # `npm install` from the committed lock, not `npm ci`: npm 11 writes lock files holding only this
    # platform's optional packages (e.g. @swc/core-linux-x64-gnu) and `npm ci` then refuses them as out of sync.
    say "installing npm packages"
    (cd "$ROOT" && npm install --no-audit --no-fund --loglevel=error)
  fi
}

ensure_postgres() {
  # Only the local default server is ours to start; a given DATABASE_URL is someone else's.
  if [ -n "${DATABASE_URL:-}" ]; then return 0; fi
  if command -v pg_isready >/dev/null && ! pg_isready -q -h 127.0.0.1 -p 5432; then
    if command -v pg_ctlcluster >/dev/null; then
      say "starting the local PostgreSQL cluster"
      pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
    fi
    for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && return 0; sleep 1; done
    echo "PostgreSQL is not reachable on 127.0.0.1:5432; set DATABASE_URL or start it" >&2
    return 1
  fi
}

ensure_hledger() {
  # The ledger tests compare our trial balance with an independent tool: Debian's hledger.
  command -v hledger >/dev/null && return 0
  say "installing hledger (Debian package) for the ledger cross-check"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo -n"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q hledger >/dev/null \
    || { $sudo apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q hledger >/dev/null; }
}

temporal_healthy() { # address
  "$TEMPORAL_BIN" operator cluster health --address "$1" >/dev/null 2>&1
}

# start_temporal ADDRESS_PORT UI_PORT DB_FILE(or empty for in-memory) LOG_FILE [--headless]
# Sets TEMPORAL_PID when it started a server, leaves it empty when one was already healthy.
start_temporal() {
  local port="$1" ui_port="$2" db_file="$3" log_file="$4" headless="${5:-}"
  TEMPORAL_PID=""
  if temporal_healthy "127.0.0.1:$port"; then
    say "reusing the Temporal dev server already running on 127.0.0.1:$port"
    return 0
  fi
  local args=(server start-dev --ip 127.0.0.1 --port "$port" --ui-port "$ui_port" --namespace default
    --search-attribute TenantId=Keyword --log-level warn)
  [ -n "$db_file" ] && args+=(--db-filename "$db_file")
  [ -n "$headless" ] && args+=(--headless)
  mkdir -p "$(dirname "$log_file")"
  "$TEMPORAL_BIN" "${args[@]}" >"$log_file" 2>&1 &
  TEMPORAL_PID=$!
  for _ in $(seq 1 120); do
    if temporal_healthy "127.0.0.1:$port"; then return 0; fi
    if ! kill -0 "$TEMPORAL_PID" 2>/dev/null; then
      echo "Temporal dev server exited; its log ($log_file):" >&2
      tail -n 30 "$log_file" >&2
      return 1
    fi
    sleep 0.5
  done
  echo "Temporal dev server did not become healthy within 60 s; see $log_file" >&2
  return 1
}
