/**
 * Spec reports stay small whatever the spec (issue 9, item 5): at most 20 tokens of the spec
 * and of its pending names, 200 characters of each, the rest counted. Both cores build the
 * same text (messages.rs / messages.ts); this runs on each backend.
 */
import test from 'ava';

import { SpanRegistry, backend, onWarning, setSpanGroupSpec, type NemoLensWarning } from '../src/index';
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
