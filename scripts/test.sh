#!/usr/bin/env bash
# Runs the checks and tests: type check, lint, then jest against a real PostgreSQL (a fresh test database)
# and a real Temporal dev server (started here unless TEMPORAL_ADDRESS points at one).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

ensure_node_modules
TEMPORAL_BIN="$(bash scripts/temporal-cli.sh)"
ensure_postgres
ensure_hledger

say "type check"
npx tsc --noEmit
say "lint"
npx eslint --max-warnings 0 .

TEMPORAL_PID=""
if [ -z "${TEMPORAL_ADDRESS:-}" ]; then
  port="${TEMPORAL_TEST_PORT:-7243}"
  say "starting a Temporal dev server for the tests on 127.0.0.1:$port (in memory)"
  start_temporal "$port" "$((port + 1000))" "" "$ROOT/.data/temporal-test.log" --headless
  export TEMPORAL_ADDRESS="127.0.0.1:$port"
fi
stop_temporal() { [ -n "$TEMPORAL_PID" ] && kill -TERM "$TEMPORAL_PID" 2>/dev/null && wait "$TEMPORAL_PID" 2>/dev/null; true; }
trap stop_temporal EXIT

say "jest"
NODE_ENV=test npx jest "$@"
