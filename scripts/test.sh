#!/usr/bin/env bash
# Runs the checks and tests: type check, lint, then jest against a real PostgreSQL (a fresh test database)
# and a real Temporal dev server (started here unless TEMPORAL_ADDRESS points at one).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

ensure_basics
ensure_hledger
ensure_chromium
# The cluster test (test/cluster) runs nginx, PgBouncer and the Temporal server on PostgreSQL; it is skipped,
# saying so, only where nginx or PgBouncer cannot be installed.
ensure_nginx || true
ensure_pgbouncer || true

say "contract types (contracts/openapi.ts is generated from api/openapi.yaml)"
generated="$(mktemp -d)/openapi.ts"
npx openapi-typescript api/openapi.yaml -o "$generated" >/dev/null 2>&1
if ! cmp -s "$generated" contracts/openapi.ts; then
  echo "contracts/openapi.ts is not what api/openapi.yaml generates: run npm run generate:types" >&2
  exit 1
fi
say "type check"
npx tsc --noEmit
say "type check of the console (api/web/static, // @ts-check with the OpenAPI document's types)"
npx tsc -p api/web/static/tsconfig.json
say "lint"
npx eslint --max-warnings 0 .
say "import rules (dependency-cruiser)"
npx depcruise --config .dependency-cruiser.cjs api workflows activities worker db core runtime contracts adapters services tools bench test
say "unused files, exports and dependencies (knip)"
npx knip

TEMPORAL_PID=""
if [ -z "${TEMPORAL_ADDRESS:-}" ]; then
  port="${TEMPORAL_TEST_PORT:-7243}"
  if [ "${TEMPORAL_MODE:-dev}" = "postgres" ]; then
    # Fresh databases each run, as the in-memory dev server is.
    export TEMPORAL_DB_NAME="${TEMPORAL_DB_NAME:-temporal_test}"
    admin_url="${TEMPORAL_DB_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
    for name in "$TEMPORAL_DB_NAME" "${TEMPORAL_DB_NAME}_visibility"; do
      psql -q "$admin_url" -c "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" >/dev/null
    done
    say "starting a Temporal server on PostgreSQL for the tests on 127.0.0.1:$port"
    start_temporal_postgres "$port" "$ROOT/.data/temporal-postgres-test.log"
  else
    say "starting a Temporal dev server for the tests on 127.0.0.1:$port (in memory)"
    start_temporal "$port" "$((port + 1000))" "" "$ROOT/.data/temporal-test.log" --headless
  fi
  export TEMPORAL_ADDRESS="127.0.0.1:$port"
fi
stop_temporal() { [ -n "$TEMPORAL_PID" ] && kill -TERM "$TEMPORAL_PID" 2>/dev/null && wait "$TEMPORAL_PID" 2>/dev/null; true; }
trap stop_temporal EXIT

if [ "$#" -gt 0 ]; then
  say "jest $*"
  NODE_ENV=test npx jest "$@"
  exit
fi
say "jest: unit and integration tests"
NODE_ENV=test npx jest --selectProjects unit integration
# Alone, after the others: its processes would otherwise compete with them for the two cores.
say "jest: the cluster test (several processes behind nginx and PgBouncer, Temporal on PostgreSQL)"
bash scripts/temporal-server.sh >/dev/null
NODE_ENV=test npx jest --selectProjects cluster
