#!/usr/bin/env bash
# Makes sure the pinned Temporal CLI is built and prints its path on stdout.
# Built with `go install` from its Go module into a cache folder outside the repository and reused afterwards.
# v1.5.1 is the newest release that `go install pkg@version` accepts (later ones carry a replace directive).
set -euo pipefail

TEMPORAL_CLI_VERSION="${TEMPORAL_CLI_VERSION:-1.5.1}"
cache_root="${TEMPORAL_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/accounting-backend/temporal-cli}"
bin_dir="$cache_root/v$TEMPORAL_CLI_VERSION"
bin="$bin_dir/temporal"

if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  for candidate in /usr/local/go/bin /usr/lib/go/bin; do
    [ -x "$candidate/go" ] && PATH="$candidate:$PATH"
  done
fi
command -v go >/dev/null 2>&1 || { echo "temporal-cli: Go is required to build the Temporal CLI" >&2; exit 1; }

mkdir -p "$bin_dir"
lock="$cache_root/.build.lock"
# Two callers (start and test) may race for the first build: one builds, the other waits.
exec 9>"$lock"
echo "temporal-cli: building Temporal CLI v$TEMPORAL_CLI_VERSION with go install (first time only, 5-15 minutes on 2 cores)..." >&2
flock 9
if [ ! -x "$bin" ]; then
  tmp_bin="$(mktemp -d "$cache_root/build.XXXXXX")"
  CGO_ENABLED=0 GOBIN="$tmp_bin" GOFLAGS="${GOFLAGS:-} -modcacherw" go install -trimpath \
    -ldflags "-s -w -X github.com/temporalio/cli/temporalcli.Version=$TEMPORAL_CLI_VERSION" \
    "github.com/temporalio/cli/cmd/temporal@v$TEMPORAL_CLI_VERSION" >&2
  mv "$tmp_bin/temporal" "$bin"
  rmdir "$tmp_bin"
fi
echo "temporal-cli: ready at $bin" >&2
echo "$bin"
