/**
 * `SpanRegistry.register` returns the gate handles of the groups it registered, typed from the
 * names (`npm test` type-checks this file, so the @ts-expect-error lines fail the build if
 * a typo ever compiles); `nemo-lens/fallbacks` returns closed handles of the same type.
 */
import test from 'ava';

import * as fallbacks from '../src/fallbacks';
import { SpanRegistry, managedSpan, setSpanGroupSpec, spanGroup, type GateHandles, type SpanGroup } from '../src/index';
import { resetTelemetry } from '../src/testing';

test.beforeEach(() => resetTelemetry());

test.serial('register returns the realm-wide handle of each group, kept current', (t) => {
  const G = SpanRegistry.register('trainer', ['step', 'layer'] as const, { default: ['step'] });
  // @ts-expect-error a group the namespace did not register is a compile error
  t.is(G.stpe, undefined);
  t.is(G.step, spanGroup('step'));
  t.is(G.layer, spanGroup('layer'));
  t.deepEqual(Object.keys(G), ['step', 'layer']);
  t.false(G.step.enabled);
  setSpanGroupSpec('default');
  t.true(G.step.enabled);
  t.false(G.layer.enabled);
  t.true(
    managedSpan(G.step, 'train_step', (span) => span !== undefined),
    'the handle opens managedSpan',
  );
  t.true(Object.isFrozen(G));
});

test.serial('names are the keys as written; the handles are those of the normalised groups', (t) => {
  // No `as const`: the const type parameter keeps the literals anyway.
  const G = SpanRegistry.register('odd', [' Step ', '__proto__', 'constructor']);
  const keys: GateHandles<' Step ' | '__proto__' | 'constructor'> = G;
  t.is(keys[' Step '], spanGroup('step'));
  t.is(G.__proto__, spanGroup('__proto__'), 'an own key, not the prototype');
  t.is(G.constructor, spanGroup('constructor'));
  t.is(Object.getPrototypeOf(G), null);
  setSpanGroupSpec('step');
  t.true(G[' Step '].enabled);
});

test.serial('names from a Set or a non-literal array give handles keyed by string', (t) => {
  const names: string[] = ['a', 'b'];
  const G = SpanRegistry.register('dynamic', new Set(names));
  const handle: SpanGroup | undefined = G['a'];
  t.is(handle, spanGroup('a'));
  t.is(G['missing'], undefined);
});

test.serial('a failed registration throws before returning anything', (t) => {
  SpanRegistry.register('mega', ['step']);
  t.throws(() => SpanRegistry.register('mega', ['layer']), { code: 'ERR_NEMO_LENS_NAMESPACE_REGISTERED' });
});

test('the fallbacks return closed handles of the same type', (t) => {
  const G = fallbacks.SpanRegistry.register('trainer', ['step', 'layer'] as const);
  const real: ReturnType<typeof SpanRegistry.register<readonly ['step', 'layer']>> = G;
  // @ts-expect-error the fallbacks' handles are typed from the names too
  t.is(G.stpe, undefined);
  t.deepEqual(Object.keys(real), ['step', 'layer']);
  t.false(G.step.enabled);
  t.is(G.layer.name, 'layer');
  t.is(
    fallbacks.managedSpan(G.step, 'x', (span) => span),
    undefined,
  );
  t.true(Object.isFrozen(G) && Object.isFrozen(G.step));
});
