/**
 * Spec reports stay small whatever the spec (issue 9, item 5): at most 20 tokens of the spec
 * and of its pending names, 200 characters of each, the rest counted. Both cores build the
 * same text (messages.rs / messages.ts); this runs on each backend.
 */
import test from 'ava';
import fc from 'fast-check';

import { SpanRegistry, backend, onWarning, setSpanGroupSpec, type NemoLensWarning } from '../src/index';
import { JsState } from '../src/backends/js/state';
import { loadNative } from '../src/backends/native';
import { resetTelemetry } from '../src/testing';

function reportOf(spec: string): NemoLensWarning[] {
  const seen: NemoLensWarning[] = [];
  const off = onWarning((warning) => seen.push(warning));
  try {
    setSpanGroupSpec(spec);
  } finally {
    off();
  }
  return seen;
}

test.beforeEach(() => resetTelemetry());

test.serial(`${backend}: a 10 MB spec of many tokens gives one short SPEC_PENDING line`, (t) => {
  SpanRegistry.register('trainer', ['step']);
  const tokens = Array.from({ length: 1_000_000 }, (_, i) => `typo${i}`);
  const spec = `step,${tokens.join(',')}`;
  t.true(spec.length > 10_000_000);
  const [warning, ...more] = reportOf(spec);
  t.deepEqual(more, []);
  t.is(warning?.code, 'NEMO_LENS_SPEC_PENDING');
  t.true(warning!.message.length < 2_000, `${warning!.message.length} characters`);
  t.true(warning!.message.includes(`"step,typo0,typo1,`), 'the first tokens are shown');
  t.true(warning!.message.includes(`and ${1_000_001 - 20} more tokens`), 'the rest of the spec is counted');
  t.true(warning!.message.includes(`and ${1_000_000 - 20} more, which nothing`), 'the rest of the pending names are counted');
});

test.serial(`${backend}: one 10 MB token is cut at 200 characters, with the rest counted`, (t) => {
  const token = `${'😀'.repeat(10)}${'x'.repeat(10_000_000)}`;
  const [warning] = reportOf(token);
  t.is(warning?.code, 'NEMO_LENS_NO_GROUPS_REGISTERED');
  t.true(warning!.message.length < 1_000, `${warning!.message.length} characters`);
  t.true(warning!.message.includes(`"${'😀'.repeat(10)}${'x'.repeat(190)}…(+${10_000_010 - 200} characters)"`), warning!.message.slice(0, 400));
});

test.serial(`${backend}: a short spec is quoted whole, as before`, (t) => {
  SpanRegistry.register('trainer', ['step']);
  const spec = Array.from({ length: 20 }, (_, i) => `t${i}`).join(',');
  const [warning] = reportOf(spec);
  t.true(warning!.message.includes(`spec "${spec}" names "t0",`));
  t.false(warning!.message.includes('more'));
});

test('both cores build the same capped report, whatever the spec (tokens, code points, surrogate pairs at the cut)', (t) => {
  const native = loadNative();
  if (!native.ok) {
    t.is(process.env['NEMO_LENS_BACKEND'], 'js', `native core missing: ${native.error.message}`);
    return;
  }
  const token = fc.oneof(
    fc.constantFrom('', ' ', 'step', 'STEP ', 'typo', '😀', 'é'),
    fc.string({ unit: fc.constantFrom('a', 'é', '😀', ' ', '\u3000', 'ß'), minLength: 195, maxLength: 205 }),
    fc.string({ unit: 'grapheme', maxLength: 12 }),
  );
  fc.assert(
    fc.property(fc.array(token, { minLength: 0, maxLength: 45 }), fc.boolean(), (tokens, registered) => {
      const spec = tokens.join(',');
      const reports = [new JsState(), native.create()].map((core) => {
        if (registered) core.register('trainer', ['step'], [['default', ['step']]], false);
        return core.setSpec(spec).warnings;
      });
      t.deepEqual(reports[1], reports[0], JSON.stringify(spec).slice(0, 200));
      return JSON.stringify(reports[0]) === JSON.stringify(reports[1]);
    }),
    { numRuns: 500 },
  );
});
