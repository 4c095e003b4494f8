#!/usr/bin/env bash
# cargo fuzz (libFuzzer) on the Rust core for a fixed time per target, no panic allowed:
#   spec_tokens  the spec parser and name normalisation on arbitrary UTF-8
#   state_ops    the registry and resolver as a state machine (fuzz/fuzz_targets/state_ops.rs)
#
#     scripts/fuzz-core.sh            # 300 s per target
#     scripts/fuzz-core.sh 1800       # 30 min per target
#
# Needs a nightly toolchain (libFuzzer's sanitizer flags) and cargo-fuzz
# (`rustup toolchain install nightly && cargo install cargo-fuzz`). The corpus persists in
# fuzz/corpus/<target> between runs; a crash leaves its input in fuzz/artifacts/<target>.
set -euo pipefail
seconds="${1:-300}"
cd "$(dirname "$0")/../fuzz"

if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz-core: no nightly toolchain (rustup toolchain install nightly); libFuzzer needs it." >&2
  exit 2
fi
if ! cargo +nightly fuzz --help >/dev/null 2>&1; then
  echo "fuzz-core: cargo-fuzz is not installed (cargo install cargo-fuzz)." >&2
  exit 2
fi

cargo +nightly fuzz build >/dev/null
mkdir -p target/logs
for target in spec_tokens state_ops; do
  log="target/logs/${target}.log"
  echo "fuzz-core: ${target} for ${seconds} s (log: fuzz/${log})"
  if ! cargo +nightly fuzz run "${target}" -- -max_total_time="${seconds}" -print_final_stats=1 >"${log}" 2>&1; then
    tail -n 40 "${log}" >&2
    echo "fuzz-core: ${target} FAILED; the input is in fuzz/artifacts/${target}/" >&2
    exit 1
  fi
  execs=$(grep -E '^stat::number_of_executed_units' "${log}" | awk '{print $2}')
  cov=$(grep -E '^#[0-9]+' "${log}" | tail -n 1 | grep -oE 'cov: [0-9]+' || true)
  corpus=$(find "corpus/${target}" -type f | wc -l)
  echo "fuzz-core: ${target}: ${execs} executions in ${seconds} s, no crash (${cov:-cov: ?}, corpus ${corpus} inputs)"
done
