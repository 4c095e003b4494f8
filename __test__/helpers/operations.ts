/** Random core operations for differential tests (fast-check arbitraries and an interpreter). */
import fc from 'fast-check';

import type { CoreState } from '../../src/backends/types';

const NAME_POOL = [
  'step', ' STEP ', 'Step', 'layer', 'job', 'all', ' ALL ', '', '  ', 'default', 'per_step', 'typo',
  '__proto__', 'constructor', 'toString', 'ΟΔΟΣ', 'İ', '\ufeffstep', '\u001cstep\u001f', '\u0085x', 'ß', 'ﬃ', '😀', 'a,b',
];

export const name = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...NAME_POOL) }, { weight: 1, arbitrary: fc.string({ maxLength: 6 }) });
const namespace = fc.constantFrom('mega', 'rl', 'Mega', '', ' ', 'gym', '__proto__');
const spec = fc.array(name, { maxLength: 4 }).map((parts) => parts.join(','));

export type Operation =
  | { op: 'register'; namespace: string; groups: string[]; presets: Array<[string, string[]]> | null; allowOverride: boolean }
  | { op: 'unregister'; namespace: string }
  | { op: 'clear' }
  | { op: 'reset' }
  | { op: 'setSpec'; spec: string }
  | { op: 'pin'; names: string[] }
  | { op: 'setup'; done: boolean }
  | { op: 'resolve'; spec: string };

export const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('register' as const),
      namespace,
      groups: fc.array(name, { maxLength: 4 }),
      presets: fc.option(fc.array(fc.tuple(name, fc.array(name, { maxLength: 3 })), { maxLength: 3 }), { nil: null }),
      allowOverride: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('unregister' as const), namespace }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clear' as const) }) },
  // resetTelemetry's core call; `npm run coverage` showed neither core's reset ran beside the other.
  { weight: 1, arbitrary: fc.record({ op: fc.constant('reset' as const) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('setSpec' as const), spec }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('pin' as const), names: fc.array(name, { maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('setup' as const), done: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('resolve' as const), spec }) },
);

/** Apply one operation; returns what the call returned, normalised for comparison. */
export function applyOperation(core: CoreState, op: Operation): unknown {
  switch (op.op) {
    case 'register':
      return outcome(core.register(op.namespace, op.groups, op.presets, op.allowOverride));
    case 'unregister':
      return outcome(core.unregister(op.namespace));
    case 'clear':
      return outcome(core.clear());
    case 'reset':
      core.reset();
      return null;
    case 'setSpec':
      return outcome(core.setSpec(op.spec));
    case 'pin':
      return outcome(core.pin(op.names));
    case 'setup':
      core.setSetupDone(op.done);
      return null;
    case 'resolve':
      return core.resolve(op.spec);
  }
}

function outcome(result: { error?: { code: string; message: string } | null; warnings: Array<{ code: string; message: string }> }) {
  return {
    error: result.error ? { code: result.error.code, message: result.error.message } : null,
    warnings: result.warnings.map((w) => ({ code: w.code, message: w.message })),
  };
}

/** Every read-out of a core, including the interned names and the bitset words. */
export function snapshotOf(core: CoreState): unknown {
  const bits = new Uint32Array((core.nameCount() + 31) >>> 5);
  core.writeEnabled(bits);
  return {
    groups: core.groups(),
    namespaces: core.namespaces(),
    presets: core.presets(),
    enabled: core.enabled(),
    pending: core.pending(),
    names: core.names(0),
    bits: [...bits],
  };
}
