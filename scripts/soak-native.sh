#!/usr/bin/env bash
# Leak soak of the native addon: register / resolve / setSpec / pin / unregister / clear, the
# refused-call paths and the bitset writes, on native cores that are dropped and finalized
# every 1000 rounds, driven through the CoreState wrapper the package ships
# (dist/backends/native.js, which makes the binding's packed calls; no facade, no tsx).
#
#   1. LeakSanitizer (GCC's liblsan, LD_PRELOADed into node) at two round counts, plus a pass
#      that loads the addon in worker threads: a leak in the addon grows with the rounds or
#      the workers; napi-rs's per-environment class reference (40 bytes, never freed by
#      design) does not.
#   2. valgrind memcheck (node --jitless) on a shorter run: definitely-lost blocks, and any
#      memory error whose stack passes through the addon.
#   3. RSS outside the V8 heap over a long run, sampled as it goes: it must plateau.
#
#     scripts/soak-native.sh                 # defaults: LSan 20k and 200k rounds, valgrind 2k, RSS 10^6
#     LSAN_ROUNDS=1000000 VALGRIND_ROUNDS=5000 scripts/soak-native.sh
#
# Builds an unstripped release copy of the addon into target/soak (symbols for the reports);
# the shipped native/*.node is not touched. Exit code 1 if any check fails.
set -euo pipefail
cd "$(dirname "$0")/.."
LSAN_ROUNDS="${LSAN_ROUNDS:-200000}"
VALGRIND_ROUNDS="${VALGRIND_ROUNDS:-2000}"
RSS_ROUNDS="${RSS_ROUNDS:-1000000}"
WORKERS="${WORKERS:-8}"
LSAN_LIB="${LSAN_LIB:-$(ls /usr/lib/x86_64-linux-gnu/liblsan.so.* 2>/dev/null | head -n 1 || true)}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "soak-native: building an unstripped release addon (target/soak)"
CARGO_TARGET_DIR=target/soak CARGO_PROFILE_RELEASE_STRIP=none CARGO_PROFILE_RELEASE_DEBUG=line-tables-only \
  cargo build --release -p nemo-lens-node --quiet
cp target/soak/release/libnemo_lens_node.so "$work/nemo-lens.node"
# The generated loader honours NAPI_RS_NATIVE_LIBRARY_PATH, so dist's wrapper loads this copy.
export NAPI_RS_NATIVE_LIBRARY_PATH="$work/nemo-lens.node"
export SOAK_NATIVE_MODULE="$PWD/dist/backends/native.js"
npm run build:ts --silent

cat >"$work/driver.js" <<'EOF'
'use strict';
const { Worker, isMainThread, workerData, parentPort } = require('node:worker_threads');
const { loadNative } = require(process.env.SOAK_NATIVE_MODULE);
const native = loadNative();
if (!native.ok) throw native.error;
if (!process.env.NAPI_RS_NATIVE_LIBRARY_PATH) throw new Error('NAPI_RS_NATIVE_LIBRARY_PATH is not set');

// Node runs napi finalizers from the event loop (after the GC that found the object dead), so
// the loop yields whenever it drops an instance, as any real program's event loop would: a
// synchronous loop would keep every dropped instance's memory until it ended.
async function soak(rounds, sample) {
  let state = native.create();
  let refused = 0;
  for (let i = 0; i < rounds; i++) {
    const ns = `ns${i % 17}`;
    state.register(ns, [`g${i % 97}`, 'step', ` Layer${i % 5} `, 'ΟΔΟΣ\u0130'], [[`p${i % 3}`, ['step', `g${i % 11}`, 'missing']]], true);
    state.setSpec(`p0,step,typo${i % 13}`);
    state.resolve(`all,p1,${'x'.repeat(i % 50)}`);
    if (i % 7 === 0) state.unregister(ns);
    if (state.register('', ['x'], null, false).error) refused++;
    if (state.register('bad', [' ALL '], null, false).error) refused++;
    if (state.unregister('nobody').error) refused++;
    if (i % 5 === 0) state.pin(['a', `b${i % 3}`]);
    if (i % 101 === 0) state.clear();
    const bits = new Uint32Array((state.nameCount() + 31) >>> 5);
    state.writeEnabled(bits);
    try {
      state.writeEnabled(new Uint32Array(0));
    } catch {
      refused++; // a thrown napi Error: its path must not leak either
    }
    state.presets(); state.groups(); state.namespaces(); state.enabled(); state.pending(); state.names(0);
    if (i % 1000 === 999) {
      state = native.create(); // the old instance is freed by its finalizer
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (sample && i % (rounds / 10) === 0) await sample(i);
  }
  return refused;
}

if (!isMainThread) {
  soak(workerData.rounds).then((refused) => parentPort.postMessage(refused));
} else {
  const [mode, roundsText, workersText] = process.argv.slice(2);
  const rounds = Number(roundsText);
  const done = (extra) => {
    if (global.gc) for (let i = 0; i < 3; i++) global.gc();
    console.log(JSON.stringify({ mode, rounds, ...extra }));
  };
  if (mode === 'workers') {
    const count = Number(workersText);
    let finished = 0;
    for (let w = 0; w < count; w++) {
      new Worker(__filename, { workerData: { rounds } }).on('message', () => {
        if (++finished === count) done({ workers: count });
      });
    }
  } else if (mode === 'rss') {
    const samples = [];
    soak(rounds, async (i) => {
      if (global.gc) global.gc();
      await new Promise((resolve) => setImmediate(resolve)); // let the finalizers of what the GC found run
      const { rss, heapTotal } = process.memoryUsage();
      samples.push([i, Math.round(rss / 1e5) / 10, Math.round(heapTotal / 1e5) / 10]);
    }).then(() => done({ rssMb: samples }));
  } else {
    soak(rounds).then((refused) => done({ refused }));
  }
}
EOF

status=0
own_frames='nemo_lens|crates/nemo-lens-core|src/binding'

lsan() { # mode rounds [workers]
  local out="$work/lsan-$1-$2.txt"
  LD_PRELOAD="$LSAN_LIB" LSAN_OPTIONS="exitcode=0:report_objects=0" node --expose-gc "$work/driver.js" "$@" >"$out" 2>&1 || true
  local summary leaked allocations own
  summary=$(grep -E '^SUMMARY: LeakSanitizer' "$out" || echo 'SUMMARY: LeakSanitizer: 0 byte(s) leaked in 0 allocation(s).')
  leaked=$(echo "$summary" | grep -oE '[0-9]+ byte' | grep -oE '[0-9]+')
  allocations=$(echo "$summary" | grep -oE 'in [0-9]+ allocation' | grep -oE '[0-9]+')
  # Leak records whose stack passes through our code (not napi-rs's module registration).
  own=$(awk '/^(Direct|Indirect) leak/{block=$0; next} /^$/{if (block!="") print block; block=""; next} {if (block!="") block=block " | " $0}' "$out" |
    grep -E "$own_frames" | grep -vc 'register_classes' || true)
  echo "soak-native: LSan $1 $2${3:+ x$3 workers}: ${leaked} bytes leaked in ${allocations} allocations; records in nemo-lens code (beyond napi-rs class registration): ${own}" >&2
  echo "$leaked"
  if [ "$own" != "0" ]; then
    touch "$work/failed" # (this runs in a command substitution: a variable would not survive)
    grep -B2 -A20 -E "$own_frames" "$out" | head -60 >&2
  fi
}

if [ -n "$LSAN_LIB" ] && [ -e "$LSAN_LIB" ]; then
  small=$(lsan soak $((LSAN_ROUNDS / 10)))
  large=$(lsan soak "$LSAN_ROUNDS")
  one=$(lsan workers 2000 1)
  many=$(lsan workers 2000 "$WORKERS")
  if [ "$large" -gt "$small" ]; then
    echo "soak-native: FAIL: the leak grows with the rounds (${small} -> ${large} bytes)" >&2
    status=1
  fi
  echo "soak-native: LSan: ${small} B after $((LSAN_ROUNDS / 10)) rounds, ${large} B after ${LSAN_ROUNDS} rounds; ${one} B with 1 worker, ${many} B with ${WORKERS} workers (napi-rs: 40 B per environment)"
else
  echo "soak-native: no liblsan found (apt-get install liblsan0, or set LSAN_LIB); skipping LeakSanitizer" >&2
fi

if command -v valgrind >/dev/null; then
  out="$work/valgrind.txt"
  valgrind --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite --num-callers=40 \
    node --jitless --expose-gc "$work/driver.js" soak "$VALGRIND_ROUNDS" >"$out" 2>&1 || true
  definite=$(grep -E 'definitely lost:' "$out" | tail -n 1 | sed -E 's/.*definitely lost: //')
  # Memory errors (not leaks) whose stack passes through the addon; V8's conservative stack
  # scanning reports uninitialised reads in node itself, which are not ours.
  own_errors=$(awk '/^==[0-9]+== [A-Z0-9]/{if (block!="") print block; block=$0; next} /^==[0-9]+== +(at|by)/{if (block!="") block=block " | " $0; next} {if (block!="") print block; block=""}' "$out" |
    grep -E "$own_frames" | grep -vE 'definitely lost|register_classes' | grep -c . || true)
  echo "soak-native: valgrind ${VALGRIND_ROUNDS} rounds: definitely lost ${definite}; memory errors in nemo-lens frames: ${own_errors}"
  if [ "$own_errors" != "0" ]; then
    status=1
    grep -B5 -A30 -E "$own_frames" "$out" | head -80 >&2
  fi
else
  echo "soak-native: valgrind not installed; skipping" >&2
fi

# RSS minus the V8 heap's reserved size: the memory outside the JS heap, where the addon's
# allocations live (V8 grows its heap capacity in steps of its own, whatever the addon does).
rss=$(node --expose-gc "$work/driver.js" rss "$RSS_ROUNDS")
echo "$rss" | node -e '
const { rssMb } = JSON.parse(require("fs").readFileSync(0, "utf8"));
const outside = rssMb.map(([i, rss, heap]) => [i, rss, heap, Math.round((rss - heap) * 10) / 10]);
console.log(`soak-native: by round, RSS / V8 heap / outside the V8 heap (MB): ${outside.map(([i, r, h, o]) => `${i}: ${r}/${h}/${o}`).join(", ")}`);
const second = outside[1][3], last = outside[outside.length - 1][3];
if (last - second > 8) { console.error(`soak-native: FAIL: memory outside the V8 heap grew ${(last - second).toFixed(1)} MB after warm-up`); process.exit(1); }
console.log(`soak-native: memory outside the V8 heap after warm-up ${second} MB, after ${outside[outside.length - 1][0]} rounds ${last} MB`);
' || status=1

[ -e "$work/failed" ] && status=1
exit "$status"
