import test from 'ava';

import * as fallbacks from '../src/fallbacks';
import * as real from '../src/index';

/** True only when A and B are the same type (mutually assignable is not enough for overloads). */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equals<A, B>): Equals<A, B> => proof;

// Compile-time proof: `npm test` type-checks this file, so a drifting signature fails the build.
same<typeof fallbacks.managedSpan, typeof real.managedSpan>(true);
same<typeof fallbacks.traceFn, typeof real.traceFn>(true);
same<typeof fallbacks.spanCm, typeof real.spanCm>(true);
same<typeof fallbacks.isSpanGroupEnabled, typeof real.isSpanGroupEnabled>(true);
same<typeof fallbacks.safeSetSpanAttributes, typeof real.safeSetSpanAttributes>(true);
same<typeof fallbacks.SpanRegistry, typeof real.SpanRegistry>(true);

const names = ['managedSpan', 'traceFn', 'spanCm', 'isSpanGroupEnabled', 'safeSetSpanAttributes'] as const;

test('each fallback has the runtime length of the real function', (t) => {
  for (const name of names) t.is(fallbacks[name].length, real[name].length, name);
  for (const method of Object.keys(real.SpanRegistry) as Array<keyof typeof real.SpanRegistry>) {
    t.is(fallbacks.SpanRegistry[method].length, real.SpanRegistry[method].length, `SpanRegistry.${method}`);
  }
  t.deepEqual(Object.keys(fallbacks.SpanRegistry).sort(), Object.keys(real.SpanRegistry).sort());
});

test('fallbacks are closed gates that run the callback', async (t) => {
  t.is(
    fallbacks.managedSpan('step', 'x', (span) => span),
    undefined,
  );
  t.is(
    fallbacks.managedSpan('step', 'x', { attributes: { a: 1 } }, () => 5),
    5,
  );
  t.is(
    fallbacks.spanCm('x', () => 'ran'),
    'ran',
  );
  const fn = async (a: number) => a + 1;
  t.is(fallbacks.traceFn('step', 'x')(fn), fn);
  t.is(await fallbacks.traceFn('step', 'x')(fn)(1), 2);
  const descriptor = { value: fn, writable: true, enumerable: false, configurable: true };
  t.is(fallbacks.traceFn('step', 'x')({}, 'method', descriptor), descriptor, 'a legacy method decorator keeps the method');
  t.false(fallbacks.isSpanGroupEnabled('step'));
  t.notThrows(() => fallbacks.safeSetSpanAttributes(undefined, { a: 1 }));
  fallbacks.SpanRegistry.register('ns', ['a']);
  t.deepEqual([...fallbacks.SpanRegistry.groups()], []);
  t.deepEqual([...fallbacks.SpanRegistry.presets().keys()], ['all']);
});

test('the fallbacks module loads no OpenTelemetry and no native code', async (t) => {
  const { execFileSync } = await import('node:child_process');
  const script = `
    require('./src/fallbacks');
    const loaded = Object.keys(require.cache).filter((f) => /node_modules\\/(?!tsx|esbuild)|native/.test(f));
    process.stdout.write(JSON.stringify(loaded));
  `;
  const out = execFileSync(process.execPath, ['--import=tsx', '-e', script], { cwd: `${__dirname}/..`, encoding: 'utf8' });
  t.deepEqual(JSON.parse(out), []);
});
