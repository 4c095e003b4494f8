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

test('a report against a large registry lists the same first names on both cores', (t) => {
  if (!native.ok) {
    t.is(process.env['NEMO_LENS_BACKEND'], 'js', `native core missing: ${native.error.message}`);
    return;
  }
  const groups = Array.from({ length: 25 }, (_, i) => `g${String(i).padStart(2, '0')}`);
  const messages = [new JsState(), native.create()].map((core) => {
    core.register('big', groups, null, false);
    return core.setSpec('typo').warnings.map((w) => w.message);
  });
  t.deepEqual(messages[0], messages[1]);
  const [message] = messages[0]!;
  t.regex(message!, /"g19" and 5 more; presets: "all"; namespaces: "big"\./);
  t.false(message!.includes('"g20"'), 'names past the limit are counted, not listed');
  t.true(message!.includes('"typo"'), 'the pending names are always listed');
});
