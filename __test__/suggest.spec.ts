/**
 * Did-you-mean suggestions in NEMO_LENS_SPEC_PENDING: the twin's rule (src/backends/js/suggest.ts)
 * on the cases the Rust core's unit tests use (crates/nemo-lens-core/src/suggest.rs), and both
 * cores producing the same whole message for specs full of near misses (names from a small
 * alphabet, so that close names are common, astral characters included).
 */
import test from 'ava';
import fc from 'fast-check';

import { JsState } from '../src/backends/js/state';
import { DISTANCE_BUDGET, MAX_TOKEN_CHARS, SUGGESTION_LIMIT, closest, osaDistance, suggestions } from '../src/backends/js/suggest';
import { loadNative } from '../src/backends/native';
import type { CoreState } from '../src/backends/types';
import { SpanRegistry, onWarning, setSpanGroupSpec, type NemoLensWarning } from '../src/index';
import { resetTelemetry } from '../src/testing';

const native = loadNative();

test('the distance is optimal string alignment over code points', (t) => {
  const d = (a: string, b: string) => osaDistance(Array.from(a), Array.from(b));
  t.is(d('', ''), 0);
  t.is(d('step', ''), 4);
  t.is(d('stpe', 'step'), 1, 'a swap of neighbours is one edit');
  t.is(d('ca', 'abc'), 3, 'optimal string alignment, not unrestricted Damerau–Levenshtein (2)');
  t.is(d('kitten', 'sitting'), 3);
  t.is(d('😀tep', 'step'), 1, 'an astral character is one edit');
});

test('near misses get the closest group or preset; far names and short tokens get none', (t) => {
  t.deepEqual(suggestions(['per_stpe', 'lyer', 'stpe', 'rolout', 'defualt'], ['step', 'layer', 'rollout'], ['all', 'default', 'per_step']), [
    ['per_stpe', 'per_step'],
    ['lyer', 'layer'],
    ['stpe', 'step'],
    ['rolout', 'rollout'],
    ['defualt', 'default'],
  ]);
  t.is(closest('backward', ['step', 'forward']), undefined);
  t.is(closest('b', ['a']), undefined, 'one edit would replace the whole token');
  t.is(closest('zz', ['ab']), undefined);
  t.is(closest('stap', ['stop', 'step']), 'step', 'ties go to the first in code-point order');
  t.is(closest('steep', ['stop', 'step']), 'step', 'the closest wins');
  t.is(closest('éval', ['eval']), 'eval');
  t.is(closest('😀tep', ['step']), 'step');
  const pending = Array.from({ length: SUGGESTION_LIMIT + 5 }, (_, i) => `stp${i}`);
  const groups = Array.from({ length: SUGGESTION_LIMIT + 5 }, (_, i) => `step${i}`);
  t.is(suggestions(pending, groups, []).length, SUGGESTION_LIMIT);
});

test('long tokens and huge registries stay cheap: a token cap and a distance budget, as in the core', (t) => {
  const long = 's'.repeat(MAX_TOKEN_CHARS + 1);
  t.is(closest(long, [long.slice(1)]), undefined);
  const groups = Array.from({ length: DISTANCE_BUDGET }, (_, i) => String(i).padStart(8, '0'));
  groups.push('stepstep');
  t.deepEqual(suggestions(['stepstpe'], groups, []), [], 'the budget ends the scan before the close name');
  t.deepEqual(suggestions(['stepstpe'], groups.slice(DISTANCE_BUDGET - 1), []), [['stepstpe', 'stepstep']]);
});

test.serial('the warning says what the typo probably meant', async (t) => {
  await resetTelemetry();
  const warnings: NemoLensWarning[] = [];
  const stop = onWarning((w) => warnings.push(w));
  try {
    SpanRegistry.register('trainer', ['step', 'layer'], { per_step: ['step'] });
    setSpanGroupSpec('per_stpe,layer');
  } finally {
    stop();
    await resetTelemetry();
  }
  t.is(warnings.length, 1);
  t.is(warnings[0]!.code, 'NEMO_LENS_SPEC_PENDING');
  t.true(warnings[0]!.message.endsWith(' Did you mean "per_step" for "per_stpe"?'), warnings[0]!.message);
});

const letter = fc.constantFrom('s', 't', 'e', 'p', 'a', '😀', 'é');
const word = fc.array(letter, { minLength: 1, maxLength: 7 }).map((letters) => letters.join(''));

test('both cores suggest the same names, byte for byte', (t) => {
  if (!native.ok) {
    t.is(process.env['NEMO_LENS_BACKEND'], 'js', `native core missing: ${native.error.message}`);
    return;
  }
  fc.assert(
    fc.property(fc.uniqueArray(word, { minLength: 1, maxLength: 12 }), fc.array(word, { minLength: 1, maxLength: 30 }), (groups, tokens) => {
      const messages = ([new JsState(), native.create()] as CoreState[]).map((core) => {
        core.register('lib', groups, [['pre_' + groups[0]!, [groups[0]!]]], false);
        return core.setSpec(tokens.join(',')).warnings.map((w) => `${w.code}: ${w.message}`);
      });
      return JSON.stringify(messages[0]) === JSON.stringify(messages[1]);
    }),
    { numRuns: 300 },
  );
  t.pass();
});
