#!/usr/bin/env bash
# Runs the whole service on this machine: installs what is missing (npm packages, the Temporal CLI,
# database roles and schema), starts the Temporal dev server (or, with TEMPORAL_MODE=postgres, the Temporal
# server on PostgreSQL), the worker and the API.
# Ctrl-C stops everything this script started.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

ensure_basics

# The development keys and the readable mail outbox are opt-in; this script is the development start.
export NODE_ENV="${NODE_ENV:-development}"

say "compiling TypeScript"
npx tsc -p tsconfig.build.json

say "preparing the database (roles, database, migrations)"
node dist/db/setup.js up

PORT="${PORT:-3000}"
METRICS_PORT="${METRICS_PORT:-9465}"
# The API listens on LISTEN_HOST (loopback unless set): where to reach it, and the name to print.
case "${LISTEN_HOST:-127.0.0.1}" in
  127.0.0.1|0.0.0.0) api_host=127.0.0.1; shown_host=localhost ;;
  ::|::1) api_host='[::1]'; shown_host=localhost ;;
  *:*) api_host="[$LISTEN_HOST]"; shown_host="$api_host" ;;
  *) api_host="$LISTEN_HOST"; shown_host="$LISTEN_HOST" ;;
esac
TEMPORAL_PORT="${TEMPORAL_PORT:-7233}"
TEMPORAL_UI_PORT="${TEMPORAL_UI_PORT:-8233}"
export TEMPORAL_ADDRESS="${TEMPORAL_ADDRESS:-127.0.0.1:$TEMPORAL_PORT}"
mkdir -p .data/temporal

pids=()
cleanup() {
  trap - INT TERM EXIT
  say "stopping"
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup INT TERM EXIT

if [ "${TEMPORAL_MODE:-dev}" = "postgres" ]; then
  say "starting the Temporal server on PostgreSQL (production-like mode, no Web UI; logs in .data/temporal-postgres.log)"
  start_temporal_postgres "$TEMPORAL_PORT" "$ROOT/.data/temporal-postgres.log"
else
  say "starting the Temporal dev server (SQLite in .data/temporal, Web UI on :$TEMPORAL_UI_PORT)"
  start_temporal "$TEMPORAL_PORT" "$TEMPORAL_UI_PORT" "$ROOT/.data/temporal/temporal.db" "$ROOT/.data/temporal/server.log"
fi
[ -n "$TEMPORAL_PID" ] && pids+=("$TEMPORAL_PID")

say "starting the worker and the API"
# The worker's JavaScript heap is bounded too (docs/operations.md, WORKER_MAX_OLD_SPACE_MB): its activities stream.
node --max-old-space-size="${WORKER_MAX_OLD_SPACE_MB:-256}" dist/worker/main.js &
pids+=($!)
# The API's JavaScript heap is bounded (docs/operations.md, API_MAX_OLD_SPACE_MB): its requests are bounded too.
PORT="$PORT" METRICS_PORT="$METRICS_PORT" node --max-old-space-size="${API_MAX_OLD_SPACE_MB:-128}" dist/api/server.js &
pids+=($!)

for _ in $(seq 1 60); do
  if curl -fsS "http://$api_host:$PORT/readyz" >/dev/null 2>&1; then break; fi
  sleep 0.5
done
if [ "${TEMPORAL_MODE:-dev}" = "postgres" ]; then
  temporal_lines="  Temporal     $TEMPORAL_ADDRESS on PostgreSQL (no Web UI: $TEMPORAL_BIN workflow list --address $TEMPORAL_ADDRESS)"
else
  temporal_lines="  Temporal UI  http://localhost:$TEMPORAL_UI_PORT
  Rates job    http://localhost:$TEMPORAL_UI_PORT/namespaces/default/schedules/${RATES_SCHEDULE_ID:-rates-refresh}"
fi
cat >&2 <<MSG

  API          http://$shown_host:$PORT/api/v1
  API docs     http://$shown_host:$PORT/docs
  API metrics  http://$shown_host:$METRICS_PORT/metrics
$temporal_lines
  Dev mail     http://$shown_host:$PORT/dev/mail?to=you@example.com

  Ctrl-C stops everything.
MSG
# Stop everything as soon as one part stops.
wait -n "${pids[@]}"
