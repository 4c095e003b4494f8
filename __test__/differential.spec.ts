/**
 * Differential property test: random operation sequences give identical outcomes (errors and
 * whole warning messages), state read-outs and enabled bitsets on the Rust core and the
 * TypeScript twin. The long run (10^5 sequences) is scripts/fuzz-differential.ts.
 */
import test from 'ava';
import fc from 'fast-check';

import { JsState } from '../src/backends/js/state';
import { loadNative } from '../src/backends/native';
import type { CoreState } from '../src/backends/types';
import { operation, applyOperation, snapshotOf } from './helpers/operations';

const native = loadNative();

test('native and twin agree on random operation sequences', (t) => {
  if (!native.ok) {
    // Without a binary there is nothing to compare against; the backend test reports why.
    t.is(process.env['NEMO_LENS_BACKEND'], 'js', `native core missing: ${native.error.message}`);
    return;
  }
  fc.assert(
    fc.property(fc.array(operation, { maxLength: 40 }), (ops) => {
      const cores: CoreState[] = [new JsState(), native.create()];
      for (const op of ops) {
        const [a, b] = cores.map((core) => applyOperation(core, op));
        if (JSON.stringify(a) !== JSON.stringify(b)) return false;
        const [sa, sb] = cores.map(snapshotOf);
        if (JSON.stringify(sa) !== JSON.stringify(sb)) return false;
      }
      return true;
    }),
    { numRuns: Number(process.env['NEMO_LENS_FUZZ_RUNS'] ?? 300) },
  );
  t.pass();
});
