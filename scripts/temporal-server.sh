#!/usr/bin/env bash
# Makes sure the pinned Temporal server and its SQL schema tool are built and prints their folder on stdout
# (holding `server` and `sql`). Built with `go install` from the server's Go module, at the version the
# pinned CLI embeds, into a cache folder outside the repository and reused afterwards.
set -euo pipefail

TEMPORAL_SERVER_VERSION="${TEMPORAL_SERVER_VERSION:-1.29.1}"
cache_root="${TEMPORAL_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/accounting-backend/temporal-server}"
bin_dir="$cache_root/v$TEMPORAL_SERVER_VERSION"

if [ -x "$bin_dir/server" ] && [ -x "$bin_dir/sql" ] && [ -d "$bin_dir/module" ]; then
  echo "$bin_dir"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  for candidate in /usr/local/go/bin /usr/lib/go/bin; do
    [ -x "$candidate/go" ] && PATH="$candidate:$PATH"
  done
fi
command -v go >/dev/null 2>&1 || { echo "temporal-server: Go is required to build the Temporal server" >&2; exit 1; }

mkdir -p "$bin_dir"
tmp_bin=""
# A failed build leaves no half-made folder behind.
trap 'rm -rf ${tmp_bin:+"$tmp_bin"} "$bin_dir/module.tmp"' EXIT
exec 9>"$cache_root/.build.lock"
echo "temporal-server: building Temporal server v$TEMPORAL_SERVER_VERSION and temporal-sql-tool with go install (first time only, about 4 minutes on 2 cores)..." >&2
flock 9
for tool in server sql; do
  if [ ! -x "$bin_dir/$tool" ]; then
    tmp_bin="$(mktemp -d "$cache_root/build.XXXXXX")"
    path="go.temporal.io/server/cmd/server"
    [ "$tool" = sql ] && path="go.temporal.io/server/cmd/tools/sql"
    CGO_ENABLED=0 GOBIN="$tmp_bin" GOFLAGS="${GOFLAGS:-} -modcacherw" go install -trimpath -ldflags "-s -w" "$path@v$TEMPORAL_SERVER_VERSION" >&2
    mv "$tmp_bin/$tool" "$bin_dir/$tool"
    rmdir "$tmp_bin"
    tmp_bin=""
  fi
done
if [ ! -d "$bin_dir/module" ]; then
  # The schema and the sample configuration ship inside the module: keep a copy next to the binaries.
  module="$(go env GOMODCACHE)/go.temporal.io/server@v$TEMPORAL_SERVER_VERSION"
  mkdir -p "$bin_dir/module.tmp"
  cp -r "$module/schema" "$module/config" "$bin_dir/module.tmp/"
  chmod -R u+w "$bin_dir/module.tmp"
  mv "$bin_dir/module.tmp" "$bin_dir/module"
fi
echo "temporal-server: ready in $bin_dir" >&2
echo "$bin_dir"
