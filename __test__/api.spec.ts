import test from 'ava';

import {
  NemoLensError,
  SpanRegistry,
  backend,
  enabledSpanGroups,
  isSpanGroupEnabled,
  nativeLoadError,
  onWarning,
  pendingSpanGroups,
  setEnabledSpanGroups,
  setSpanGroupSpec,
  spanGroup,
  type NemoLensWarning,
} from '../src/index';
import { resetTelemetry } from '../src/testing';

test.beforeEach(() => resetTelemetry());

function captureWarnings(): { warnings: NemoLensWarning[]; stop: () => void } {
  const warnings: NemoLensWarning[] = [];
  const stop = onWarning((warning) => warnings.push(warning));
  return { warnings, stop };
}

test.serial('backend is the one this run asked for', (t) => {
  t.is(backend, process.env['NEMO_LENS_BACKEND'] === 'js' ? 'js' : 'native');
  if (backend === 'native') t.is(nativeLoadError, undefined);
});

test.serial('registry errors are coded NemoLensErrors that say what to do, and change nothing', (t) => {
  SpanRegistry.register('mega', ['step']);
  const cases: Array<[() => void, NemoLensError['code'], RegExp]> = [
    [() => SpanRegistry.register('', ['x']), 'ERR_NEMO_LENS_INVALID_NAMESPACE', /namespace is empty/],
    [() => SpanRegistry.register('rl', ['ok', '  ']), 'ERR_NEMO_LENS_EMPTY_GROUP_NAME', /"rl".*"  "/],
    [() => SpanRegistry.register('rl', [' ALL ']), 'ERR_NEMO_LENS_RESERVED_GROUP_NAME', /" ALL "/],
    [() => SpanRegistry.register('rl', ['x'], { All: ['x'] }), 'ERR_NEMO_LENS_RESERVED_PRESET_NAME', /"All"/],
    [() => SpanRegistry.register('mega', ['layer']), 'ERR_NEMO_LENS_NAMESPACE_REGISTERED', /allowOverride/],
    [() => SpanRegistry.unregister('MEGA'), 'ERR_NEMO_LENS_NAMESPACE_NOT_REGISTERED', /"MEGA".*"mega"/],
  ];
  for (const [call, code, message] of cases) {
    const error = t.throws(call, { instanceOf: NemoLensError });
    t.is(error.code, code);
    t.regex(error.message, message);
    t.deepEqual([...SpanRegistry.groups()], ['step']);
    t.deepEqual(SpanRegistry.namespaces(), ['mega']);
  }
});

test.serial('wrong argument types are coded TypeErrors', (t) => {
  const calls: Array<() => void> = [
    () => SpanRegistry.register(1 as never, ['x']),
    () => SpanRegistry.register('ns', 'step' as never),
    () => SpanRegistry.register('ns', [1] as never),
    () => SpanRegistry.register('ns', null as never),
    () => SpanRegistry.register('ns', ['x'], 'preset' as never),
    () => SpanRegistry.register('ns', ['x'], { p: 'x' } as never),
    () => SpanRegistry.register('ns', ['x'], undefined, { allowOverride: 'yes' } as never),
    () => SpanRegistry.register('ns', ['\ud800']),
    () => SpanRegistry.unregister(undefined as never),
    () => setSpanGroupSpec(undefined as never),
    () => setEnabledSpanGroups('step' as never),
    () => spanGroup(3 as never),
    () => onWarning('listener' as never),
  ];
  for (const call of calls) {
    const error = t.throws(call, { instanceOf: TypeError });
    if (error.message.startsWith('nemo-lens')) t.is((error as { code?: string }).code, 'ERR_NEMO_LENS_INVALID_ARGUMENT');
  }
  t.deepEqual(SpanRegistry.namespaces(), []);
});

test.serial('argument errors name the bad value once, with its type where that helps', (t) => {
  t.throws(() => spanGroup(undefined as never), { message: 'nemo-lens: spanGroup(name) needs a string, got undefined.' });
  t.throws(() => spanGroup(null as never), { message: 'nemo-lens: spanGroup(name) needs a string, got null.' });
  t.throws(() => spanGroup(3 as never), { message: 'nemo-lens: spanGroup(name) needs a string, got number 3.' });
  t.throws(() => spanGroup(false as never), { message: 'nemo-lens: spanGroup(name) needs a string, got boolean false.' });
  t.throws(() => spanGroup(Symbol('s') as never), { message: 'nemo-lens: spanGroup(name) needs a string, got symbol Symbol(s).' });
  t.throws(() => spanGroup(['step'] as never), { message: 'nemo-lens: spanGroup(name) needs a string, got an array.' });
});

test.serial('a string where names go is refused by the compiler and at run time', (t) => {
  // @ts-expect-error a string is iterable, but not a list of names
  t.throws(() => SpanRegistry.register('ns', 'step'), { instanceOf: TypeError });
  // @ts-expect-error likewise for preset members
  t.throws(() => SpanRegistry.register('ns', ['step'], { p: 'step' }), { instanceOf: TypeError });
  // @ts-expect-error and for a pinned set
  t.throws(() => setEnabledSpanGroups('step'), { instanceOf: TypeError });
});

test.serial('groups and presets accept any iterable; presets a Map or an object', (t) => {
  SpanRegistry.register('a', new Set(['x', 'y']), new Map([['p', new Set(['x'])]]));
  SpanRegistry.register('b', ['z'], { p: ['z'], q: [] });
  t.deepEqual(
    [...SpanRegistry.presets()].map(([name, members]) => [name, [...members].sort()]),
    [
      ['all', ['x', 'y', 'z']],
      ['p', ['x', 'z']],
      ['q', []],
    ],
  );
});

test.serial('resolve never throws, whatever it is given', (t) => {
  SpanRegistry.register('a', ['x']);
  for (const odd of [undefined, null, 42, {}, ['x'], '\ud800,x']) {
    const resolved = SpanRegistry.resolve(odd as never);
    t.true(resolved.enabled instanceof Set);
  }
  t.deepEqual([...SpanRegistry.resolve('\ud800,x').pending], ['\ufffd']);
});

test.serial('gate handles are one object per name and follow every resolution', (t) => {
  const step = spanGroup('step');
  t.is(spanGroup('step'), step);
  t.is(step.name, 'step');
  t.false(step.enabled);
  SpanRegistry.register('mega', ['step'], { per_step: ['step'] });
  setSpanGroupSpec('per_step');
  t.true(step.enabled);
  t.true(isSpanGroupEnabled(step));
  SpanRegistry.unregister('mega');
  t.false(step.enabled);
  setEnabledSpanGroups(['step']);
  t.true(step.enabled);
  void resetTelemetry();
  t.false(step.enabled);
  t.false(isSpanGroupEnabled('step'));
});

test.serial('isSpanGroupEnabled is exact and never true for inherited keys or odd values', (t) => {
  setEnabledSpanGroups(['step', '__proto__', 'constructor']);
  t.true(isSpanGroupEnabled('step'));
  t.true(isSpanGroupEnabled('__proto__'));
  t.true(isSpanGroupEnabled('constructor'));
  for (const name of ['STEP', ' step', 'toString', 'hasOwnProperty', 'valueOf']) t.false(isSpanGroupEnabled(name));
  for (const odd of [undefined, null, 0, {}, [], Symbol('x')]) t.false(isSpanGroupEnabled(odd as never));
  setEnabledSpanGroups([]);
  t.false(isSpanGroupEnabled('__proto__'));
  t.false(isSpanGroupEnabled('constructor'));
});

test.serial('warnings reach listeners synchronously and process "warning" as NemoLensWarning', async (t) => {
  const { warnings, stop } = captureWarnings();
  const events: Error[] = [];
  const onProcessWarning = (warning: Error) => events.push(warning);
  process.on('warning', onProcessWarning);
  setSpanGroupSpec('typo');
  t.deepEqual(
    warnings.map((w) => w.code),
    ['NEMO_LENS_NO_GROUPS_REGISTERED'],
  );
  await new Promise((resolve) => setImmediate(resolve));
  process.off('warning', onProcessWarning);
  stop();
  const event = events.find((e) => e.message === warnings[0]!.message);
  t.is(event?.name, 'NemoLensWarning');
  t.is((event as { code?: string } | undefined)?.code, 'NEMO_LENS_NO_GROUPS_REGISTERED');
  setSpanGroupSpec('typo');
  t.is(warnings.length, 1, 'an unsubscribed listener hears nothing more');
});

test.serial('a throwing listener breaks neither the call nor the other listeners', (t) => {
  const stopBad = onWarning(() => {
    throw new Error('listener bug');
  });
  const { warnings, stop } = captureWarnings();
  t.notThrows(() => setSpanGroupSpec('x'));
  t.is(warnings.length, 1);
  stopBad();
  stop();
});

test.serial('enabled and pending sets follow the spec; pinning drops it', (t) => {
  SpanRegistry.register('mega', ['job', 'step'], { default: ['job'] });
  setSpanGroupSpec('default,typo');
  t.deepEqual([...enabledSpanGroups()], ['job']);
  t.deepEqual([...pendingSpanGroups()], ['typo']);
  setEnabledSpanGroups([' Raw ']);
  t.deepEqual([...enabledSpanGroups()], [' Raw ']);
  t.deepEqual([...pendingSpanGroups()], []);
  SpanRegistry.register('rl', ['typo']);
  t.false(isSpanGroupEnabled('typo'), 'a pinned set does not follow registrations');
});

test.serial('the realm state is shared under a versioned Symbol.for key', (t) => {
  // The key is pinned by name, as @opentelemetry/api pins 'opentelemetry.js.api.1'. Copies of
  // nemo-lens in one process share a registry only while they agree on it: changing it (a new
  // STATE_FORMAT in src/version.ts) splits every mixed install. Change it deliberately, here too.
  // Format 2: the string gates read `few` (src/gate.ts), which a format-1 copy would not keep current.
  const key = Symbol.for('nemo-lens.state.v2');
  const state = (globalThis as Record<symbol, { backend: string; version: string; format: number } | undefined>)[key];
  t.truthy(state, 'the state lives under Symbol.for("nemo-lens.state.v2")');
  t.is(state?.format, 2);
  t.is(state?.backend, backend);
  t.is(typeof state?.version, 'string');
});
