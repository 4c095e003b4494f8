#!/usr/bin/env bash
# What the real-backend tests need, made ready before `npm test` (its pretest step): the Jaeger
# binary (built once into a cache folder, see build.sh) and the gRPC exporter the grpc run loads
# from scripts/jaeger/grpc (installed once). Both are reused when present.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bash "$here/build.sh" >/dev/null
if [[ ! -d "$here/grpc/node_modules/@opentelemetry/exporter-trace-otlp-grpc" ]]; then
  npm ci --prefix "$here/grpc" --no-audit --no-fund >/dev/null
fi
