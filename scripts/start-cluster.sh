#!/usr/bin/env bash
# Runs the service as several processes on this machine, in the topology of a deployment on several
# machines (docs/operations.md, "Several processes"):
#
#   clients → nginx (deploy/nginx.conf) → API processes ┐
#                                         workers ──────┼→ PgBouncer (deploy/pgbouncer.ini, transaction pooling) → PostgreSQL
#                                                       └→ the Temporal server on PostgreSQL
#
# Installs what is missing (npm packages, the Temporal CLI and server, nginx and PgBouncer from Debian,
# database roles and schema), starts everything, restarts an API process or a worker that stops (as a
# process supervisor would), and stops everything on Ctrl-C or SIGTERM.
#
# CLUSTER_PORT (8080) is where nginx listens; the API processes listen on the next ports (8081, 8082, …),
# their metrics on CLUSTER_PORT+100+n, the workers' metrics on CLUSTER_PORT+200+n. CLUSTER_API_PROCESSES and
# CLUSTER_WORKERS (2 each), PGBOUNCER_PORT (6432), PGBOUNCER_POOL_SIZE (20), TEMPORAL_PORT (7233).
# Process ids and logs are in CLUSTER_RUN_DIR (.data/cluster-CLUSTER_PORT): api-1.pid, worker-2.log, ….
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

ensure_basics
ensure_nginx
ensure_pgbouncer
PATH="$PATH:/usr/sbin"

export NODE_ENV="${NODE_ENV:-development}"
port="${CLUSTER_PORT:-8080}"
apis="${CLUSTER_API_PROCESSES:-2}"
workers="${CLUSTER_WORKERS:-2}"
pgbouncer_port="${PGBOUNCER_PORT:-6432}"
TEMPORAL_PORT="${TEMPORAL_PORT:-7233}"
export TEMPORAL_ADDRESS="127.0.0.1:$TEMPORAL_PORT"
export BASE_DOMAIN="${BASE_DOMAIN:-localhost}"
export PUBLIC_URL="${PUBLIC_URL:-http://localhost:$port}"
run="${CLUSTER_RUN_DIR:-$ROOT/.data/cluster-$port}"
rm -rf "$run"
mkdir -p "$run"

say "compiling TypeScript"
npx tsc -p tsconfig.build.json

say "preparing the database (roles, database, migrations), directly on PostgreSQL"
node dist/db/setup.js up

say "bundling the workflows once for every worker"
node dist/worker/bundle.js "$run/workflow-bundle.js"

pids=()
cleanup() {
  trap - INT TERM EXIT
  say "stopping"
  touch "$run/stopping"
  rm -f "$run/ready"
  local pid_file
  for pid_file in "$run"/*.pid; do
    [ -e "$pid_file" ] && kill -TERM "$(cat "$pid_file")" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  case "${pgbouncer_dir:-}" in /tmp/accounting-pgbouncer.*) rm -rf "$pgbouncer_dir" ;; esac
}
trap cleanup INT TERM EXIT

# render TEMPLATE OUTPUT NAME=VALUE…: the template with each @NAME@ replaced by its value.
render() {
  local template="$1" output="$2" text pair
  shift 2
  text="$(cat "$template")"
  for pair in "$@"; do text="${text//@${pair%%=*}@/${pair#*=}}"; done
  if grep -q '@[A-Z_]*@' <<<"$text"; then echo "render: $template has a value left unset: $(grep -o '@[A-Z_]*@' <<<"$text" | head -n1)" >&2; return 1; fi
  printf '%s\n' "$text" >"$output"
}

# The Temporal server on PostgreSQL, connected to directly (its prepared statements need a session).
say "starting the Temporal server on PostgreSQL (logs in $run/temporal.log)"
start_temporal_postgres "$TEMPORAL_PORT" "$run/temporal.log"
[ -n "$TEMPORAL_PID" ] && pids+=("$TEMPORAL_PID")

# PgBouncer: the application role's name and password come from the URL the processes would use directly.
mapfile -t app_role < <(node -e '
  const { loadConfig } = require("./dist/runtime/config");
  const url = new URL(loadConfig().database.url);
  console.log([decodeURIComponent(url.username), decodeURIComponent(url.password), url.href].join("\n"));
')
app_user="${app_role[0]}" app_password="${app_role[1]}" direct_url="${app_role[2]}"
pooled_url="$(node -e 'const u = new URL(process.argv[1]); u.host = `127.0.0.1:${process.argv[2]}`; console.log(u.href)' "$direct_url" "$pgbouncer_port")"
pg_address="$(node -e 'const u = new URL(process.argv[1]); console.log(u.hostname, u.port || 5432)' "$direct_url")"
pgbouncer_dir="$run/pgbouncer"
pgbouncer_args=()
if [ "$(id -u)" -eq 0 ]; then
  # PgBouncer refuses to run as root: it drops to the postgres account, which needs its own folder (the
  # repository's may not be reachable to it); the run folder links to it.
  pgbouncer_dir="$(mktemp -d /tmp/accounting-pgbouncer.XXXXXX)"
  ln -s "$pgbouncer_dir" "$run/pgbouncer"
  pgbouncer_args=(-u postgres)
fi
mkdir -p "$pgbouncer_dir"
render deploy/pgbouncer.ini "$pgbouncer_dir/pgbouncer.ini" \
  RUN_DIR="$pgbouncer_dir" PORT="$pgbouncer_port" PG_HOST="${pg_address% *}" PG_PORT="${pg_address#* }" \
  POOL_SIZE="${PGBOUNCER_POOL_SIZE:-20}"
printf '"%s" "%s"\n' "$app_user" "$app_password" >"$pgbouncer_dir/pgbouncer-users.txt"
chmod 600 "$pgbouncer_dir/pgbouncer-users.txt"
[ "$(id -u)" -eq 0 ] && chown -R postgres "$pgbouncer_dir"
say "starting PgBouncer on 127.0.0.1:$pgbouncer_port (transaction pooling)"
pgbouncer "${pgbouncer_args[@]}" "$pgbouncer_dir/pgbouncer.ini" >>"$run/pgbouncer-output.log" 2>&1 &
pids+=($!)
pooled() { PGPASSWORD="$app_password" psql -Atq -h 127.0.0.1 -p "$pgbouncer_port" -U "$app_user" -d "$(basename "$direct_url")" -c 'SELECT 1' >/dev/null 2>&1; }
for _ in $(seq 1 50); do pooled && break; sleep 0.2; done
pooled || { echo "PgBouncer does not answer on 127.0.0.1:$pgbouncer_port; see $run/pgbouncer-output.log" >&2; exit 1; }

# supervise NAME COMMAND…: runs the command, and again a second after it stops, until the cluster stops.
# The running process's id is in NAME.pid, its output in NAME.log.
supervise() {
  local name="$1"
  shift
  while [ ! -e "$run/stopping" ]; do
    "$@" >>"$run/$name.log" 2>&1 &
    echo $! >"$run/$name.pid"
    wait $! || true
    [ -e "$run/stopping" ] && break
    echo "$(date -u +%FT%TZ) $name stopped; starting it again" >>"$run/supervisor.log"
    sleep 1
  done
}

export DATABASE_URL="$pooled_url"
export TRUST_PROXY="${TRUST_PROXY:-loopback}"
export WORKFLOW_BUNDLE_PATH="$run/workflow-bundle.js"
say "starting $workers workers and $apis API processes"
for n in $(seq 1 "$workers"); do
  WORKER_METRICS_ADDRESS="127.0.0.1:$((port + 200 + n))" supervise "worker-$n" node --max-old-space-size="${WORKER_MAX_OLD_SPACE_MB:-256}" dist/worker/main.js &
  pids+=($!)
done
servers=""
for n in $(seq 1 "$apis"); do
  PORT="$((port + n))" METRICS_PORT="$((port + 100 + n))" \
    supervise "api-$n" node --max-old-space-size="${API_MAX_OLD_SPACE_MB:-128}" dist/api/server.js &
  pids+=($!)
  servers+="    server 127.0.0.1:$((port + n)) max_fails=1 fail_timeout=2s;"$'\n'
done

base_regex="${BASE_DOMAIN//./\\.}"
render deploy/nginx-problems.conf "$run/nginx-problems.conf"
render deploy/nginx.conf "$run/nginx.conf" \
  RUN_DIR="$run" LISTEN="127.0.0.1:$port" BASE_DOMAIN="$BASE_DOMAIN" BASE_DOMAIN_REGEX="$base_regex" \
  API_SERVERS="${servers%$'\n'}" NGINX_WORKERS="${NGINX_WORKERS:-1}"
say "starting nginx on 127.0.0.1:$port"
nginx -t -q -p "$run" -e "$run/nginx-error.log" -c "$run/nginx.conf"
nginx -p "$run" -e "$run/nginx-error.log" -c "$run/nginx.conf" -g 'daemon off;' &
pids+=($!)

ready() {
  local n
  for n in $(seq 1 "$apis"); do curl -fsS "http://127.0.0.1:$((port + n))/readyz" >/dev/null 2>&1 || return 1; done
  curl -fsS -H "Host: $BASE_DOMAIN" "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 || return 1
  # Each worker polls the task queue (the SDK's identity is PID@host).
  local pollers
  pollers="$("$TEMPORAL_BIN" task-queue describe -t "${TEMPORAL_TASK_QUEUE:-accounting}" --address "$TEMPORAL_ADDRESS" -o json 2>/dev/null)" || return 1
  for n in $(seq 1 "$workers"); do grep -q "\"identity\": \"$(cat "$run/worker-$n.pid")@" <<<"$pollers" || return 1; done
}
for _ in $(seq 1 240); do ready && break; sleep 0.5; done
ready || { echo "the cluster did not become ready in 120 s; logs in $run" >&2; exit 1; }
echo ready >"$run/ready"

cat >&2 <<MSG

  API          http://$BASE_DOMAIN:$port/api/v1 (nginx → $apis API processes on ports $((port + 1))…$((port + apis)))
  Workspaces   http://<slug>.$BASE_DOMAIN:$port/api/v1
  Callbacks    http://callbacks.$BASE_DOMAIN:$port/api/v1/callbacks/email-events
  Workers      $workers, on task queue ${TEMPORAL_TASK_QUEUE:-accounting}
  PostgreSQL   through PgBouncer on 127.0.0.1:$pgbouncer_port (transaction pooling)
  Temporal     $TEMPORAL_ADDRESS on PostgreSQL ($TEMPORAL_BIN workflow list --address $TEMPORAL_ADDRESS)
  Logs, pids   $run

  Ctrl-C stops everything.
MSG
# Runs until stopped; nginx, PgBouncer or Temporal stopping stops everything.
wait -n "${pids[@]}"
