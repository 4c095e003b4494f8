#!/usr/bin/env bash
# Build Jaeger v2 (an OTLP receiver with a query API) from the Go module proxy into a cache
# folder, once: the suite's real-backend tests start this binary. Reused when present.
#   NEMO_LENS_JAEGER_CACHE   where the binary goes (default: ~/.cache/nemo-lens/jaeger)
#   NEMO_LENS_JAEGER_VERSION the module version (default: v1.76.0, the one checked here)
set -euo pipefail
version="${NEMO_LENS_JAEGER_VERSION:-v1.76.0}"
cache="${NEMO_LENS_JAEGER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nemo-lens/jaeger}"
bin="$cache/jaeger-$version"
if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi
command -v go >/dev/null || { echo "go is missing: install Go 1.26 or newer" >&2; exit 1; }
mkdir -p "$cache"
work="$(mktemp -d "$cache/build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$work"
echo "building jaeger $version into $cache (about 10 minutes on 2 cores)" >&2
go mod init nemo-lens-jaeger-build >/dev/null 2>&1
go get -tool "github.com/jaegertracing/jaeger/cmd/jaeger@$version" >&2
go build -trimpath -o "$work/jaeger" github.com/jaegertracing/jaeger/cmd/jaeger >&2
mv "$work/jaeger" "$bin"
echo "$bin"
