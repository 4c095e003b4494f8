/**
 * The string gate answers from a summary of the enabled set (gate.ts: a length filter, up to
 * FEW_MAX names compared by identity, the table beyond). Whatever the summary's state, every
 * string gate must answer exactly what `enabledSpanGroups()` says: names that share a length
 * with an enabled one, strings built at run time (not internalized), inherited keys, and
 * enabled sets of every size around FEW_MAX.
 */
import test from 'ava';
import fc from 'fast-check';

import { SpanRegistry, enabledSpanGroups, isSpanGroupEnabled, managedSpan, setEnabledSpanGroups, setSpanGroupSpec, spanGroup, traceFn } from '../src/index';
import { FEW_MAX } from '../src/gate';
import { resetTelemetry } from '../src/testing';

/** Names of a few lengths, so that enabled and disabled names often share one. */
const NAMES = ['step', 'tick', 'layer', 'shard', 'batch', 'forward', 'rollout', 'backward', 'dataload', 'a', 'b', 'eval-loop-x'];
/** Strings nobody registers, some of them keys every object inherits. */
const ODD = ['', 'constructor', '__proto__', 'toString', 'hasOwnProperty', 'STEP', 'step ', 'x'.repeat(40)];

/** The same text as `name`, as a fresh (not internalized) string. */
function fresh(name: string): string {
  return name.split('').join('');
}

function assertGatesMatch(t: import('ava').ExecutionContext, label: string): void {
  const enabled = enabledSpanGroups();
  for (const name of [...NAMES, ...ODD]) {
    for (const form of [name, fresh(name)]) {
      const expected = enabled.has(name);
      t.is(isSpanGroupEnabled(form), expected, `${label}: isSpanGroupEnabled(${JSON.stringify(form)})`);
      t.is(managedSpan(form, 'site', (span) => span !== undefined), expected, `${label}: managedSpan(${JSON.stringify(form)})`);
      t.is(spanGroup(form).enabled, expected, `${label}: spanGroup(${JSON.stringify(form)}).enabled`);
    }
  }
}

test.beforeEach(() => resetTelemetry());

test.serial('string gates agree with the enabled set for every size around FEW_MAX', (t) => {
  SpanRegistry.register('lib', NAMES);
  assertGatesMatch(t, 'nothing enabled');
  for (let size = 1; size <= Math.min(NAMES.length, FEW_MAX + 3); size++) {
    // Every window of `size` names, so each name is at some point enabled beside its same-length neighbours.
    for (let start = 0; start + size <= NAMES.length; start++) {
      setSpanGroupSpec(NAMES.slice(start, start + size).join(','));
      t.is(enabledSpanGroups().size, size);
      assertGatesMatch(t, `enabled ${NAMES.slice(start, start + size).join(',')}`);
    }
  }
  setSpanGroupSpec('all');
  assertGatesMatch(t, 'all');
});

test.serial('pinned names, given as run-time strings, open exactly their own gates', (t) => {
  SpanRegistry.register('lib', NAMES);
  setEnabledSpanGroups([fresh('tick'), fresh('constructor')]);
  t.true(isSpanGroupEnabled('tick'));
  t.false(isSpanGroupEnabled('step'), 'same length as an enabled name, still disabled');
  t.true(isSpanGroupEnabled('constructor'), 'pinned as given, so it is enabled');
  t.false(isSpanGroupEnabled('toString'));
  assertGatesMatch(t, 'pinned');
});

test.serial('random enabled sets: every string gate agrees with enabledSpanGroups()', (t) => {
  SpanRegistry.register('lib', NAMES);
  const traced = new Map(NAMES.map((name) => [name, traceFn(name, 'site')((probe: () => boolean) => probe())]));
  fc.assert(
    fc.property(fc.subarray(NAMES), fc.subarray(ODD), (groups, odd) => {
      if (groups.length + odd.length === 0) setSpanGroupSpec('nothing-here');
      else setEnabledSpanGroups([...groups, ...odd.filter((name) => name !== '')].map(fresh));
      const enabled = enabledSpanGroups();
      for (const name of [...NAMES, ...ODD]) {
        if (isSpanGroupEnabled(name) !== enabled.has(name)) return false;
        if (managedSpan(fresh(name), 'site', {}, (span) => span !== undefined) !== enabled.has(name)) return false;
      }
      for (const [name, wrapper] of traced) {
        if (wrapper(() => isSpanGroupEnabled(name)) !== enabled.has(name)) return false;
      }
      return true;
    }),
    { numRuns: 300 },
  );
  t.pass();
});
