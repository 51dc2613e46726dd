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

# What every start and test command needs first: npm packages, the pinned Temporal CLI (in TEMPORAL_BIN) and
# PostgreSQL.
ensure_basics() {
  ensure_node_modules
  TEMPORAL_BIN="$(bash "$ROOT/scripts/temporal-cli.sh")"
  ensure_postgres
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

# ensure_debian_package COMMAND PACKAGE WHY: installs Debian's PACKAGE unless COMMAND is on the PATH.
ensure_debian_package() {
  local command="$1" package="$2" why="$3"
  command -v "$command" >/dev/null && return 0
  say "installing $package (Debian package) $why"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo -n"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$package" >/dev/null \
    || { $sudo apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$package" >/dev/null; }
}

# The ledger tests compare our trial balance with an independent tool: Debian's hledger.
ensure_hledger() { ensure_debian_package hledger hledger "for the ledger cross-check"; }
# The web pages are tested in a real browser: Debian's Chromium, driven by playwright-core.
ensure_chromium() { ensure_debian_package chromium chromium "for the browser tests"; }
# The several-process topology (scripts/start-cluster.sh): the proxy and the connection pooler.
ensure_nginx() { PATH="$PATH:/usr/sbin" ensure_debian_package nginx nginx "for the proxy in front of the API processes"; }
ensure_pgbouncer() { PATH="$PATH:/usr/sbin" ensure_debian_package pgbouncer pgbouncer "for connection pooling in front of PostgreSQL"; }

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
  # Eager activities: a workflow task that schedules an activity gets the activity back in its reply when
  # the worker has a free slot, instead of the activity going through matching (docs/decisions.md,
  # "Workflow throughput"). WAL with synchronous=NORMAL: one fsync per checkpoint, not per commit; a
  # crash of the process loses nothing, a power cut at most the last commits of this development store.
  local args=(server start-dev --ip 127.0.0.1 --port "$port" --ui-port "$ui_port" --namespace default
    --search-attribute TenantId=Keyword --log-level warn
    --dynamic-config-value system.enableActivityEagerExecution=true)
  [ -n "$db_file" ] && args+=(--db-filename "$db_file" --sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal)
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

# start_temporal_postgres PORT LOG_FILE
# The production-like mode: the Temporal server (built by scripts/temporal-server.sh) on PostgreSQL, in its
# own role and databases on the same cluster. Creates the role, the two databases and their schema (or
# brings the schema up to date), writes the server's configuration under .data/temporal-postgres-PORT,
# starts it, and makes sure the namespace and the TenantId search attribute exist. Sets TEMPORAL_PID when it
# started a server, leaves it empty when one was already healthy. Ports: PORT (gRPC), PORT+1 history,
# PORT+2 matching, PORT+6 worker, PORT+20 HTTP, PORT-300.. membership, PORT+703 pprof, TEMPORAL_METRICS_PORT.
start_temporal_postgres() {
  local port="$1" log_file="$2"
  TEMPORAL_PID=""
  if temporal_healthy "127.0.0.1:$port"; then
    say "reusing the Temporal server already running on 127.0.0.1:$port"
    return 0
  fi
  local dir user password db visibility admin_url pg_host pg_port
  dir="$(bash "$ROOT/scripts/temporal-server.sh")"
  user="${TEMPORAL_DB_USER:-temporal}"
  password="${TEMPORAL_DB_PASSWORD:-temporal}"
  db="${TEMPORAL_DB_NAME:-temporal}"
  visibility="${db}_visibility"
  pg_host="${TEMPORAL_DB_HOST:-127.0.0.1}"
  pg_port="${TEMPORAL_DB_PORT:-5432}"
  admin_url="${TEMPORAL_DB_ADMIN_URL:-postgres://postgres@$pg_host:$pg_port/postgres}"

  say "preparing Temporal's databases ($db, $visibility) as role $user"
  psql -q -v ON_ERROR_STOP=1 "$admin_url" >/dev/null <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '$user') THEN
    CREATE ROLE "$user" LOGIN PASSWORD '$password';
  END IF;
END \$\$;
SQL
  local name
  for name in "$db" "$visibility"; do
    if [ "$(psql -Atq "$admin_url" -c "SELECT 1 FROM pg_database WHERE datname = '$name'")" != "1" ]; then
      psql -q -v ON_ERROR_STOP=1 "$admin_url" -c "CREATE DATABASE \"$name\" OWNER \"$user\"" >/dev/null
    fi
  done
  local sql_tool=("$dir/sql" --plugin postgres12 --ep "$pg_host" -p "$pg_port" -u "$user" -pw "$password")
  local schema="$dir/module/schema/postgresql/v12"
  local pair
  for pair in "$db:temporal" "$visibility:visibility"; do
    name="${pair%%:*}"
    if [ "$(PGPASSWORD="$password" psql -Atq -h "$pg_host" -p "$pg_port" -U "$user" -d "$name" -c "SELECT to_regclass('schema_version') IS NOT NULL")" != "t" ]; then
      "${sql_tool[@]}" --db "$name" setup-schema -v 0.0 >/dev/null 2>&1
    fi
    "${sql_tool[@]}" --db "$name" update-schema -d "$schema/${pair##*:}/versioned" >/dev/null 2>&1
  done

  local run_dir="$ROOT/.data/temporal-postgres-$port"
  mkdir -p "$run_dir/config/dynamicconfig" "$(dirname "$log_file")"
  cat >"$run_dir/config/dynamicconfig/dynamic.yaml" <<YAML
# Search attributes created at start are usable at once (as on the dev server).
system.forceSearchAttributesCacheRefreshOnRead:
  - value: true
    constraints: {}
# Eager activities, as on the dev server (docs/decisions.md, "Workflow throughput").
system.enableActivityEagerExecution:
  - value: true
    constraints: {}
# The forced refresh above reads search-attribute metadata from the store on every request that touches
# search attributes; the frontend's default budget (2,000 store reads per second) then refuses requests
# under load ("System Persistence Max QPS Reached"). 10,000 is what the Temporal CLI's dev server used when it
# forced the same refresh.
frontend.persistenceMaxQPS:
  - value: 10000
    constraints: {}
YAML
  store() { # name database max_conns
    cat <<YAML
    $1:
      sql:
        pluginName: "postgres12"
        databaseName: "$2"
        connectAddr: "$pg_host:$pg_port"
        connectProtocol: "tcp"
        user: "$user"
        password: "$password"
        maxConns: $3
        maxIdleConns: $3
        maxConnLifetime: "1h"
YAML
  }
  {
    cat <<YAML
log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: ${TEMPORAL_HISTORY_SHARDS:-4}
  datastores:
YAML
    store postgres-default "$db" "${TEMPORAL_DB_MAX_CONNS:-20}"
    store postgres-visibility "$visibility" "${TEMPORAL_VISIBILITY_DB_MAX_CONNS:-4}"
    cat <<YAML
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
  pprof:
    port: $((port + 703))
  metrics:
    prometheus:
      framework: "tally"
      timerType: "histogram"
      listenAddress: "127.0.0.1:${TEMPORAL_METRICS_PORT:-$((port + 767))}"
services:
  frontend:
    rpc: { grpcPort: $port, membershipPort: $((port - 300)), bindOnLocalHost: true, httpPort: $((port + 20)) }
  matching:
    rpc: { grpcPort: $((port + 2)), membershipPort: $((port - 298)), bindOnLocalHost: true }
  history:
    rpc: { grpcPort: $((port + 1)), membershipPort: $((port - 299)), bindOnLocalHost: true }
  worker:
    rpc: { grpcPort: $((port + 6)), membershipPort: $((port - 294)), bindOnLocalHost: true }
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "localhost:$port"
dcRedirectionPolicy:
  policy: "noop"
dynamicConfigClient:
  filepath: "$run_dir/config/dynamicconfig/dynamic.yaml"
  pollInterval: "10s"
YAML
  } >"$run_dir/config/temporal.yaml"

  "$dir/server" --root "$run_dir" --config config --env temporal --allow-no-auth start >"$log_file" 2>&1 &
  TEMPORAL_PID=$!
  for _ in $(seq 1 240); do
    if temporal_healthy "127.0.0.1:$port"; then break; fi
    if ! kill -0 "$TEMPORAL_PID" 2>/dev/null; then
      echo "Temporal server exited; its log ($log_file):" >&2
      tail -n 30 "$log_file" >&2
      return 1
    fi
    sleep 0.5
  done
  temporal_healthy "127.0.0.1:$port" || { echo "Temporal server did not become healthy within 120 s; see $log_file" >&2; return 1; }
  local address="127.0.0.1:$port" namespace="${TEMPORAL_NAMESPACE:-default}"
  if ! "$TEMPORAL_BIN" operator namespace describe --address "$address" -n "$namespace" >/dev/null 2>&1; then
    "$TEMPORAL_BIN" operator namespace create --address "$address" -n "$namespace" --retention 72h >/dev/null
  fi
  for _ in $(seq 1 30); do
    if "$TEMPORAL_BIN" operator search-attribute list --address "$address" -n "$namespace" 2>/dev/null | grep -q TenantId; then return 0; fi
    "$TEMPORAL_BIN" operator search-attribute create --address "$address" -n "$namespace" --name TenantId --type Keyword >/dev/null 2>&1 || true
    sleep 1
  done
  echo "the TenantId search attribute could not be created on $address" >&2
  return 1
}
