#!/usr/bin/env bash
# Build Jaeger v2 (an OTLP receiver with a query API) from the Go module proxy into a cache
# folder, once: the suite's real-backend tests (__test__/jaeger.spec.ts) and
# `npm run screenshot:jaeger` start this binary. Reused when present; prints its path.
#   NEMO_LENS_JAEGER_CACHE   where the binary goes (default: ~/.cache/nemo-lens/jaeger)
#   NEMO_LENS_JAEGER_VERSION the module version (default: v1.76.0, the one checked here)
# From scratch (no Go module or build cache) it downloads 324 modules (1.3 GB of module cache)
# and compiles 1.6 GB of build cache: 5.5 minutes on a quiet 2-core machine, 12 to 34 on a busy one.
# __test__/helpers/jaeger.ts finds the binary with the same defaults: keep the two in step.
set -euo pipefail
version="${NEMO_LENS_JAEGER_VERSION:-v1.76.0}"
cache="${NEMO_LENS_JAEGER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nemo-lens/jaeger}"
bin="$cache/jaeger-$version"
if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi
command -v go >/dev/null || { echo "go is missing: install Go 1.24 or newer (it fetches the toolchain Jaeger asks for from the Go module proxy)" >&2; exit 1; }
mkdir -p "$cache"
# One build at a time: a second caller waits for the first and then reuses its binary.
exec 9>"$cache/.build.lock"
flock 9
if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi
work="$(mktemp -d "$cache/build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$work"
echo "building jaeger $version into $cache (from scratch: 5.5 minutes on 2 quiet cores, longer on busy ones)" >&2
started=$SECONDS
# 324 downloads from scratch: one dropped connection ("unexpected EOF", seen here) must not
# fail CI. Modules already fetched stay in the module cache, so a retry only fetches the rest.
retry() {
  local attempt
  for attempt in 1 2 3 4; do
    "$@" >&2 && return 0
    echo "attempt $attempt of 4 failed: $*" >&2
    sleep $((attempt * 5))
  done
  return 1
}
go mod init nemo-lens-jaeger-build >/dev/null 2>&1
# `go get -tool` resolves Jaeger's own go.mod (replace directives rule out `go install pkg@v`).
retry go get -tool "github.com/jaegertracing/jaeger/cmd/jaeger@$version"
# The version stamp is what `jaeger version` and the UI report (Jaeger's Makefile sets it too).
retry go build -trimpath -ldflags "-X github.com/jaegertracing/jaeger/internal/version.latestVersion=$version" \
  -o "$work/jaeger" github.com/jaegertracing/jaeger/cmd/jaeger
mv "$work/jaeger" "$bin"
echo "built jaeger $version in $((SECONDS - started)) s" >&2
echo "$bin"
