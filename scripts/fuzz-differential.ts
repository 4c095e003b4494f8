/**
 * Long differential fuzzing of the two cores: random operation sequences (fast-check) run on
 * the Rust core (through the napi binding) and on the TypeScript twin; after every operation
 * the returned outcome (error code and message, every warning's code and whole message) and
 * every read-out (groups, namespaces, presets, enabled, pending, interned names, bitset words)
 * must be identical. __test__/differential.spec.ts runs a few hundred of these in `npm test`;
 * this is the long run.
 *
 *     npm run fuzz                                  # 100,000 sequences
 *     npm run fuzz -- --runs 1000000 --seed 42      # longer, reproducible
 *     npm run fuzz -- --minutes 30                  # until a time budget is spent
 *
 * Sequences come from three arbitraries in turn: operations.ts (a small name pool, so that
 * namespaces collide and share groups often), operations-wide.ts (all of Unicode and an
 * alphabet of normalisation traps) and a mix of both. A disagreement is shrunk by fast-check
 * and printed with the first diverging operation; the exit code is then 1.
 */
import { parseArgs } from 'node:util';

import fc from 'fast-check';

import { JsState } from '../src/backends/js/state';
import { loadNative } from '../src/backends/native';
import type { CoreState } from '../src/backends/types';
import { applyOperation, operation, snapshotOf, type Operation } from '../__test__/helpers/operations';
import { wideOperation } from '../__test__/helpers/operations-wide';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '100000' },
    minutes: { type: 'string' },
    seed: { type: 'string' },
    'max-ops': { type: 'string', default: '40' },
    batch: { type: 'string', default: '5000' },
  },
});

const runs = Number(values.runs);
const minutes = values.minutes === undefined ? undefined : Number(values.minutes);
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
const maxOps = Number(values['max-ops']);
const batch = Number(values.batch);
for (const [key, value] of Object.entries({ runs, seed, maxOps, batch, minutes: minutes ?? 1 })) {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`fuzz-differential: --${key} must be a positive number`);
}

const native = loadNative();
if (!native.ok) {
  console.error(`fuzz-differential: the native core did not load (${native.error.message}); run \`npm run build:native\` first.`);
  process.exit(2);
}
const createNative = native.create;

const sequences: Array<[string, fc.Arbitrary<Operation[]>]> = [
  ['pool', fc.array(operation, { maxLength: maxOps, size: 'max' })],
  ['wide', fc.array(wideOperation, { maxLength: maxOps, size: 'max' })],
  ['mixed', fc.array(fc.oneof(operation, wideOperation), { maxLength: maxOps, size: 'max' })],
];

interface Divergence {
  readonly index: number;
  readonly op: Operation;
  readonly what: 'result' | 'state';
  readonly js: unknown;
  readonly native: unknown;
}

/** Run `ops` on both cores; the first operation after which they differ, if any. */
function diverge(ops: readonly Operation[]): Divergence | undefined {
  const js: CoreState = new JsState();
  const rust: CoreState = createNative();
  for (let index = 0; index < ops.length; index++) {
    const op = ops[index]!;
    const a = JSON.stringify(applyOperation(js, op));
    const b = JSON.stringify(applyOperation(rust, op));
    if (a !== b) return { index, op, what: 'result', js: JSON.parse(a), native: JSON.parse(b) };
    const sa = JSON.stringify(snapshotOf(js));
    const sb = JSON.stringify(snapshotOf(rust));
    if (sa !== sb) return { index, op, what: 'state', js: JSON.parse(sa), native: JSON.parse(sb) };
  }
  return undefined;
}

const started = performance.now();
let done = 0;
let operations = 0;
let round = 0;
const deadline = minutes === undefined ? undefined : started + minutes * 60_000;
const finished = () => (deadline === undefined ? done >= runs : performance.now() >= deadline);

console.log(`fuzz-differential: seed ${seed}, up to ${maxOps} operations per sequence, ${deadline === undefined ? `${runs} sequences` : `${minutes} min`}`);
while (!finished()) {
  const [kind, arbitrary] = sequences[round % sequences.length]!;
  const numRuns = deadline === undefined ? Math.min(batch, runs - done) : batch;
  const batchSeed = (seed + round) % 2 ** 31;
  const result = fc.check(
    fc.property(arbitrary, (ops) => {
      operations += ops.length;
      return diverge(ops) === undefined;
    }),
    { numRuns, seed: batchSeed },
  );
  if (result.failed) {
    const ops = result.counterexample![0];
    console.error(`\nfuzz-differential: the cores disagree (${kind} sequences, batch seed ${batchSeed}, path ${result.counterexamplePath}).`);
    console.error(`shrunk sequence (${ops.length} operations):\n${JSON.stringify(ops, null, 1)}`);
    console.error(`first divergence:\n${JSON.stringify(diverge(ops), null, 1)}`);
    process.exit(1);
  }
  done += numRuns;
  round++;
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`  ${done} sequences, ${operations} operations, ${seconds.toFixed(1)} s (${Math.round(done / seconds)}/s)\r`);
}
const seconds = (performance.now() - started) / 1000;
console.log(
  `\nfuzz-differential: ${done} sequences (${operations} operations) agreed on both cores in ${seconds.toFixed(1)} s; seed ${seed}.`,
);
