/**
 * Faults in user code inside managedSpan / traceFn: whatever the callback throws, rejects or
 * hands back, the caller gets the very same value and the span ends with status ERROR.
 * spans.spec.ts already covers managedSpan with an Error, non-Error throws before and after an
 * await, and a thenable that resolves; this file adds traceFn, thenables that reject or throw,
 * values whose conversion to a message itself throws, promises that never settle, and the
 * disabled path (which must hand back the callback's own value, not a copy).
 */
import { SpanStatusCode } from '@opentelemetry/api';
import test from 'ava';

import { SpanRegistry, managedSpan, spanCm, traceFn } from '../src/index';
import { TRUNCATED_ATTRIBUTE } from '../src/telemetry/open-spans';
import { resetTelemetry, setupTestTelemetry, type TestTelemetry } from '../src/testing';

let telemetry: TestTelemetry;
const unhandled: unknown[] = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason));

test.beforeEach(async () => {
  await resetTelemetry();
  SpanRegistry.register('trainer', ['step', 'off']);
  telemetry = setupTestTelemetry({ spanGroups: 'step' });
  unhandled.length = 0;
});

test.after.always(() => resetTelemetry());

/**
 * The value a call throws or rejects with, boxed (resolving a promise with a revoked proxy
 * would itself throw); fails the test if the call did neither.
 */
async function failureOf(call: () => unknown): Promise<{ value: unknown }> {
  try {
    await call();
  } catch (error) {
    return { value: error };
  }
  throw new Error('expected the call to throw or reject');
}

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

const hostileValues = (): Array<[string, unknown]> => [
  ['an Error', new TypeError('bad input')],
  ['a string', 'plain string'],
  ['undefined', undefined],
  ['null', null],
  ['a number', 0],
  ['a symbol', Symbol('thrown')],
  ['an object without a prototype', Object.create(null) as object],
  [
    'an object whose toString throws',
    {
      toString() {
        throw new Error('toString exploded');
      },
    },
  ],
  ['a revoked proxy (instanceof and String() both throw)', revokedProxy()],
  [
    'an Error whose message getter throws',
    Object.defineProperty(new Error('x'), 'message', {
      get() {
        throw new Error('message exploded');
      },
    }),
  ],
];

type Shape = 'sync throw' | 'async throw after await' | 'rejected promise' | 'rejecting thenable' | 'thenable whose then throws';

function failing(shape: Shape, value: unknown): () => unknown {
  switch (shape) {
    case 'sync throw':
      return () => {
        throw value;
      };
    case 'async throw after await':
      return async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        throw value;
      };
    case 'rejected promise':
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the non-Error reasons are the point
      return () => Promise.reject(value);
    case 'rejecting thenable':
      return () => ({
        then(_resolve: (v: unknown) => void, reject: (reason: unknown) => void) {
          setTimeout(() => reject(value), 1);
        },
      });
    case 'thenable whose then throws':
      return () => ({
        then() {
          throw value;
        },
      });
  }
}

const SHAPES: Shape[] = ['sync throw', 'async throw after await', 'rejected promise', 'rejecting thenable', 'thenable whose then throws'];

test.serial('managedSpan, traceFn and spanCm: the same value reaches the caller, the span ends with ERROR', async (t) => {
  let expectedSpans = 0;
  for (const shape of SHAPES) {
    for (const [label, value] of hostileValues()) {
      const fn = failing(shape, value);
      const traced = traceFn('step', 'traced')(fn);
      const sites: Array<[string, () => unknown]> = [
        ['managedSpan', () => managedSpan('step', 'managed', fn)],
        ['managedSpan with options', () => managedSpan('step', 'managed', { attributes: { a: 1 } }, fn)],
        ['traceFn', () => traced()],
        ['spanCm', () => spanCm('ungated', fn)],
      ];
      for (const [site, call] of sites) {
        const what = `${site}, ${shape}, ${label}`;
        t.is((await failureOf(call)).value, value, what);
        expectedSpans++;
        const span = telemetry.spans()[expectedSpans - 1];
        t.is(telemetry.spans().length, expectedSpans, `${what}: the span ended`);
        t.is(span?.status.code, SpanStatusCode.ERROR, `${what}: status ERROR`);
      }
    }
  }
  t.is(expectedSpans, SHAPES.length * hostileValues().length * 4);
  // Status messages and exception events for the ordinary cases.
  const byMessage = new Set(telemetry.spans().map((span) => span.status.message));
  for (const message of ['bad input', 'plain string', 'undefined', 'null', '0', 'Symbol(thrown)']) t.true(byMessage.has(message), message);
  const exception = telemetry.spans()[0]!.events.find((event) => event.name === 'exception');
  t.is(exception?.attributes?.['exception.type'], 'TypeError');
  await new Promise((resolve) => setImmediate(resolve));
  t.deepEqual(unhandled, [], 'no unhandled rejection anywhere: the caller handled every one');
});

test.serial('a disabled group hands back the callback\'s own value: the same throw, the same promise, the same thenable', async (t) => {
  for (const shape of SHAPES) {
    for (const [label, value] of hostileValues()) {
      const fn = failing(shape, value);
      if (shape === 'sync throw') {
        t.is((await failureOf(() => managedSpan('off', 'x', fn))).value, value, label);
        t.is((await failureOf(() => traceFn('off', 'x')(fn)())).value, value, label);
        continue;
      }
      const returned = managedSpan('off', 'x', () => {
        const result = fn();
        // Keep the test's own rejections handled; identity is what is checked here.
        if (result instanceof Promise) result.catch(() => undefined);
        return result;
      });
      const direct = traceFn('off', 'x')(() => returned)();
      t.is(direct, returned, `${shape}, ${label}: traceFn returns the very object`);
      t.is((await failureOf(() => returned)).value, value, `${shape}, ${label}`);
    }
  }
  t.is(telemetry.spans().length, 0);
});

test.serial('a nested failure marks only the spans it passes through', async (t) => {
  const boom = new Error('inner');
  const result = await managedSpan('step', 'outer', async () => {
    try {
      await managedSpan('step', 'inner', async () => {
        await Promise.resolve();
        throw boom;
      });
    } catch (error) {
      return error === boom ? 'recovered' : 'wrong error';
    }
    return 'not thrown';
  });
  t.is(result, 'recovered');
  const status = Object.fromEntries(telemetry.spans().map((span) => [span.name, span.status.code]));
  t.deepEqual(status, { inner: SpanStatusCode.ERROR, outer: SpanStatusCode.UNSET });
});

test.serial('a thenable that calls back twice, or resolves then rejects: the first settlement wins', async (t) => {
  const twice = {
    then(resolve: (value: string) => void, reject: (reason: unknown) => void) {
      resolve('first');
      reject(new Error('late'));
      resolve('second');
    },
  };
  t.is(await managedSpan('step', 'twice', () => twice), 'first');
  const [span] = telemetry.spans();
  t.is(span?.status.code, SpanStatusCode.UNSET);
  t.is(telemetry.spans().length, 1, 'ended once');
});

test.serial('a promise that never settles leaves its span open until shutdown marks it truncated', async (t) => {
  const never = managedSpan('step', 'stuck', () => new Promise<never>(() => undefined));
  t.true(never instanceof Promise);
  await new Promise((resolve) => setTimeout(resolve, 5));
  t.is(telemetry.spans().length, 0, 'not ended while the promise is pending');
  await telemetry.handle.shutdown(1000);
  const [span] = telemetry.spans();
  t.is(span?.name, 'stuck');
  t.is(span?.attributes[TRUNCATED_ATTRIBUTE], true);
});

test.serial('a callback that throws after its span was ended by shutdown still reaches the caller', async (t) => {
  const boom = new Error('after shutdown');
  const pending = managedSpan('step', 'late', async () => {
    await new Promise((resolve) => setTimeout(resolve, 10));
    throw boom;
  });
  await telemetry.handle.shutdown(1000);
  t.is((await failureOf(() => pending)).value, boom);
  t.is(telemetry.spans().length, 1, 'the truncated span, not a second one');
});
