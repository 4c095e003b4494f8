#!/usr/bin/env bash
# A Rust panic inside a napi method must surface as a JS Error, not abort the process: every
# method of src/binding/lib.rs is #[napi(catch_unwind)] (checked statically by
# __test__/hostile.spec.ts), and this checks it at run time. It builds the addon with the
# test-only `panic-probe` feature (NativeState.panicProbe(message) panics) into
# target/soak-panic, then panics 10,000 times on the main thread and in a worker thread and
# checks that each one is a thrown Error carrying the panic message, that the instance keeps
# working, and that the process lives on. The shipped native/*.node is not touched.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${ROUNDS:-10000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "soak-panic: building the addon with the panic-probe feature (target/soak-panic)"
CARGO_TARGET_DIR=target/soak-panic cargo build --release -p nemo-lens-node --features panic-probe --quiet
cp target/soak-panic/release/libnemo_lens_node.so "$work/nemo-lens.node"
# dist's wrapper (what the package ships) loads this copy through the generated loader.
npm run build:ts --silent
export NAPI_RS_NATIVE_LIBRARY_PATH="$work/nemo-lens.node"
export PROBE_NATIVE_MODULE="$PWD/dist/backends/native.js"

cat >"$work/check.js" <<'JS'
'use strict';
const { Worker, isMainThread, parentPort } = require('node:worker_threads');
const native = require(process.env.PROBE_NATIVE_MODULE).loadNative();
if (!native.ok) throw native.error;
const rounds = Number(process.env.ROUNDS);

function probe() {
  const state = native.create(); // the CoreState wrapper; `state.native` is the napi instance
  state.register('mega', ['step'], null, false);
  let caught = 0;
  for (let i = 0; i < rounds; i++) {
    try {
      state.native.panicProbe(`panic ${i}`);
    } catch (error) {
      if (!(error instanceof Error) || error.message !== `panic ${i}`) throw new Error(`unexpected: ${error}`);
      caught++;
    }
  }
  state.setSpec('step');
  const usable = JSON.stringify(state.enabled()) === '["step"]' && state.groups().length === 1;
  return { caught, usable };
}

if (!isMainThread) {
  parentPort.postMessage(probe());
} else {
  const main = probe();
  new Worker(__filename).on('message', (worker) => {
    console.log(JSON.stringify({ main, worker }));
  });
}
JS

# The default panic hook prints each panic to stderr; keep only the count.
result=$(ROUNDS="$ROUNDS" node "$work/check.js" 2>"$work/stderr.txt")
printed=$(grep -c "panicked at" "$work/stderr.txt" || true)
echo "soak-panic: ${result}; ${printed} panics printed by the default hook"
node -e '
const r = JSON.parse(process.argv[1]); const rounds = Number(process.argv[2]);
const ok = [r.main, r.worker].every((x) => x.caught === rounds && x.usable);
console.log(ok ? `soak-panic: OK: ${2 * rounds} panics became JS Errors (main thread and a worker); instances stayed usable; the process lived` : "soak-panic: FAIL");
process.exit(ok ? 0 : 1);
' "$result" "$ROUNDS"
