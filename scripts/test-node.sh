#!/usr/bin/env bash
# Runs the checks, the unit tests and a smoke test of the real service (registration, login, posting, a
# period close, the HTTP server) on another Node.js major than the machine's: 24 unless given, e.g.
# `bash scripts/test-node.sh 22`. CI runs `npm test` on the machine's Node; this script is the check that the
# other supported majors (package.json "engines") run the same code.
#
# The binary comes from the npm registry: node-<platform>-<arch>, the package of the official build that
# the `node` package installs for the platform, into a cache folder outside the repository.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

major="${1:-24}"
package="node-$(node -p 'process.platform')-$(node -p 'process.arch')"
dir="${XDG_CACHE_HOME:-$HOME/.cache}/accounting-backend/node-$major"
if [ ! -x "$dir/node_modules/$package/bin/node" ]; then
  say "installing Node.js $major ($package from the npm registry) into $dir"
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error "$package@$major"
fi
export PATH="$dir/node_modules/$package/bin:$PATH"
say "Node.js $(node --version)"

# The unit tier, then the smoke test: integration tests through the real app, worker, PostgreSQL and Temporal.
bash scripts/test.sh \
  test/unit \
  test/integration/service/server.test.ts \
  test/integration/identity/register.test.ts \
  test/integration/identity/login.test.ts \
  test/integration/ledger/postJournalEntry.test.ts \
  test/integration/ledger/closePeriod.test.ts
