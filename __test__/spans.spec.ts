import { SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import test from 'ava';

import {
  SPAN_GROUP_ATTRIBUTE,
  SpanRegistry,
  managedSpan,
  setSpanGroupSpec,
  spanCm,
  spanGroup,
  traceFn,
} from '../src/index';
import { resetTelemetry } from '../src/testing';
import { installInMemoryTracing } from './helpers/tracing';

const { exporter } = installInMemoryTracing();

test.beforeEach(() => {
  void resetTelemetry();
  exporter.reset();
  SpanRegistry.register('trainer', ['step', 'layer', 'job']);
});

const finished = () => exporter.getFinishedSpans();

test.serial('a disabled group calls fn(undefined) and emits nothing', (t) => {
  setSpanGroupSpec('job');
  const seen: Array<Span | undefined> = [];
  const result = managedSpan('step', 'train_step', (span) => {
    seen.push(span);
    return 42;
  });
  const viaHandle = managedSpan(spanGroup('layer'), 'layer', { attributes: { a: 1 } }, (span) => {
    seen.push(span);
    return 'x';
  });
  t.is(result, 42);
  t.is(viaHandle, 'x');
  t.deepEqual(seen, [undefined, undefined]);
  t.is(finished().length, 0);
});

test.serial('odd group values are simply disabled, never a throw', (t) => {
  setSpanGroupSpec('all');
  for (const odd of [undefined, null, 0, 1, NaN, {}, [], 'STEP', ' step']) {
    t.is(
      managedSpan(odd as never, 'x', (span) => span),
      undefined,
    );
  }
  t.is(finished().length, 0);
});

test.serial('an enabled group emits a span carrying its group, current inside fn', (t) => {
  setSpanGroupSpec('step');
  const result = managedSpan('step', 'train_step', { attributes: { 'train.step': 3 } }, (span) => {
    t.truthy(span);
    t.is(trace.getActiveSpan(), span);
    return 7;
  });
  t.is(result, 7);
  const [span] = finished();
  t.is(finished().length, 1);
  t.is(span!.name, 'train_step');
  t.is(span!.attributes[SPAN_GROUP_ATTRIBUTE], 'step');
  t.is(span!.attributes['train.step'], 3);
  t.is(span!.status.code, SpanStatusCode.UNSET);
});

test.serial('nested sync and async sites become children; a disabled middle is skipped', async (t) => {
  setSpanGroupSpec('step,job');
  await managedSpan('job', 'job', async () => {
    await managedSpan('layer', 'disabled-layer', async () => {
      managedSpan('step', 'sync-child', () => undefined);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await managedSpan('step', 'async-child', async () => {
        await new Promise((resolve) => setImmediate(resolve));
      });
    });
  });
  const spans = finished();
  const byName = new Map(spans.map((span) => [span.name, span]));
  t.deepEqual([...byName.keys()].sort(), ['async-child', 'job', 'sync-child']);
  const jobId = byName.get('job')!.spanContext().spanId;
  t.is(byName.get('sync-child')!.parentSpanContext?.spanId, jobId);
  t.is(byName.get('async-child')!.parentSpanContext?.spanId, jobId);
  t.is(byName.get('async-child')!.spanContext().traceId, byName.get('job')!.spanContext().traceId);
});

test.serial('the span of an async fn covers the awaited work', async (t) => {
  setSpanGroupSpec('step');
  let resolvedAt = 0n;
  await managedSpan('step', 'slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    resolvedAt = process.hrtime.bigint();
  });
  const [span] = finished();
  const endNs = BigInt(span!.endTime[0]) * 1_000_000_000n + BigInt(span!.endTime[1]);
  const startNs = BigInt(span!.startTime[0]) * 1_000_000_000n + BigInt(span!.startTime[1]);
  t.true(resolvedAt > 0n);
  t.true(endNs - startNs >= 15_000_000n, 'the span lasts at least as long as the awaited timer');
});

test.serial('a throw is recorded with status ERROR and the same value is rethrown', (t) => {
  setSpanGroupSpec('step');
  const boom = new RangeError('boom');
  const thrown = t.throws(() =>
    managedSpan('step', 'fails', () => {
      throw boom;
    }),
  );
  t.is(thrown, boom);
  const [span] = finished();
  t.is(span!.status.code, SpanStatusCode.ERROR);
  t.is(span!.status.message, 'boom');
  t.is(span!.events[0]?.name, 'exception');
  t.is(span!.events[0]?.attributes?.['exception.type'], 'RangeError');
});

/* eslint-disable @typescript-eslint/only-throw-error -- throwing non-Error values is what this test is about */
test.serial('non-Error throws and rejections reach the caller unchanged', async (t) => {
  setSpanGroupSpec('step');
  for (const value of ['a string', undefined, 0, { custom: true }]) {
    let caught: unknown = Symbol('not caught');
    try {
      managedSpan('step', 'sync', () => {
        throw value;
      });
    } catch (error) {
      caught = error;
    }
    t.is(caught, value);
    caught = Symbol('not caught');
    try {
      await managedSpan('step', 'async', async () => {
        await Promise.resolve();
        throw value;
      });
    } catch (error) {
      caught = error;
    }
    t.is(caught, value);
  }
  t.is(finished().length, 8);
  t.true(finished().every((span) => span.status.code === SpanStatusCode.ERROR));
});
/* eslint-enable @typescript-eslint/only-throw-error */

test.serial('a thenable that is not a Promise is awaited by the span', async (t) => {
  setSpanGroupSpec('step');
  const thenable = {
    then(resolve: (value: string) => void) {
      setTimeout(() => resolve('done'), 1);
    },
  };
  const result = await managedSpan('step', 'thenable', () => thenable);
  t.is(result, 'done');
  t.is(finished().length, 1);
});

test.serial('the gate is read at call time: a site defined before setup emits once enabled', (t) => {
  const site = () => managedSpan('layer', 'layer', () => 1);
  site();
  t.is(finished().length, 0);
  setSpanGroupSpec('layer');
  site();
  t.is(finished().length, 1);
  SpanRegistry.unregister('trainer');
  site();
  t.is(finished().length, 1, 'unregistering switches the group back off');
});

test.serial('a late registration enables a site of the retained spec', (t) => {
  setSpanGroupSpec('rollout');
  const handle = spanGroup('rollout');
  t.false(handle.enabled);
  managedSpan(handle, 'rollout', () => undefined);
  SpanRegistry.register('rl', ['rollout']);
  t.true(handle.enabled);
  managedSpan(handle, 'rollout', () => undefined);
  t.deepEqual(
    finished().map((span) => span.name),
    ['rollout'],
  );
});

test.serial('traceFn keeps name and length, passes this and arguments, and is gated per call', async (t) => {
  function trainStep(this: { scale: number }, a: number, b: number): number {
    return (a + b) * this.scale;
  }
  const traced = traceFn('step', 'train_step')(trainStep);
  t.is(traced.name, 'trainStep');
  t.is(traced.length, 2);
  t.is(traced.call({ scale: 2 }, 1, 2), 6);
  t.is(finished().length, 0);
  setSpanGroupSpec('step');
  t.is(traced.call({ scale: 3 }, 1, 2), 9);
  const tracedAsync = traceFn(spanGroup('step'), 'async_step', { attributes: { kind: 'async' } })(async (x: number) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return x * 2;
  });
  t.is(await tracedAsync(4), 8);
  t.deepEqual(
    finished().map((span) => [span.name, span.attributes[SPAN_GROUP_ATTRIBUTE]]),
    [
      ['train_step', 'step'],
      ['async_step', 'step'],
    ],
  );
});

test.serial('traceFn as a TC39 method decorator', (t) => {
  class Trainer {
    constructor(private readonly lr: number) {}

    @traceFn('step', 'optimizer_step')
    optimizerStep(grad: number): number {
      return grad * this.lr;
    }
  }
  setSpanGroupSpec('step');
  const trainer = new Trainer(0.5);
  t.is(trainer.optimizerStep(4), 2);
  t.is(Trainer.prototype.optimizerStep.name, 'optimizerStep');
  t.deepEqual(
    finished().map((span) => span.name),
    ['optimizer_step'],
  );
});

test.serial('traceFn as a legacy (experimentalDecorators) method decorator', (t) => {
  // What TypeScript's legacy emit does for `@traceFn(...)` on a method: call the decorator with
  // (prototype, key, descriptor) and define the method with the descriptor it returns.
  class Trainer {
    constructor(private readonly lr: number) {}
    optimizerStep(grad: number): number {
      return grad * this.lr;
    }
  }
  const key = 'optimizerStep';
  const descriptor = Object.getOwnPropertyDescriptor(Trainer.prototype, key)!;
  const decorated = traceFn('step', 'optimizer_step')(Trainer.prototype, key, descriptor);
  t.not(decorated.value, descriptor.value, 'the method is wrapped');
  t.is(decorated.writable, descriptor.writable);
  t.is(decorated.enumerable, descriptor.enumerable);
  Object.defineProperty(Trainer.prototype, key, decorated);
  setSpanGroupSpec('step');
  const trainer = new Trainer(0.5);
  t.is(trainer.optimizerStep(4), 2, 'this and arguments reach the method');
  t.is(Trainer.prototype.optimizerStep.name, 'optimizerStep');
  t.deepEqual(
    finished().map((span) => span.name),
    ['optimizer_step'],
  );
  const getter = { get: () => 1, enumerable: false, configurable: true };
  t.throws(() => traceFn('step', 'x')(Trainer.prototype, 'size', getter as never), { code: 'ERR_NEMO_LENS_INVALID_ARGUMENT', message: /experimentalDecorators/ });
});

test.serial('spanCm is ungated and current for fn', (t) => {
  const result = spanCm('setup-phase', (span) => {
    t.is(trace.getActiveSpan(), span);
    return managedSpan('job', 'disabled', () => 'inner');
  });
  t.is(result, 'inner');
  t.deepEqual(
    finished().map((span) => [span.name, span.attributes[SPAN_GROUP_ATTRIBUTE]]),
    [['setup-phase', undefined]],
  );
});

test.serial('a broken tracer does not fail the instrumented code', (t) => {
  setSpanGroupSpec('step');
  const broken = {
    startSpan() {
      throw new Error('tracer exploded');
    },
  } as never;
  t.is(
    managedSpan('step', 'x', { tracer: broken }, (span) => (span === undefined ? 'ran without a span' : 'span')),
    'ran without a span',
  );
});

test.serial('a missing callback is a coded TypeError when enabled', (t) => {
  setSpanGroupSpec('step');
  const error = t.throws(() => managedSpan<unknown>('step', 'x', {} as never), { instanceOf: TypeError });
  t.is((error as { code?: string }).code, 'ERR_NEMO_LENS_INVALID_ARGUMENT');
});

test.serial('a callback that is not a function is reported as given, with or without options', (t) => {
  setSpanGroupSpec('step');
  const given = 'needs a callback function, got number 42.';
  t.throws(() => managedSpan<unknown>('step', 's', 42 as never), { instanceOf: TypeError, message: `nemo-lens: managedSpan(group, name, [options,] fn) ${given}` });
  t.throws(() => managedSpan<unknown>('step', 's', {}, 42 as never), { instanceOf: TypeError, message: /got number 42\.$/ });
  t.throws(() => spanCm<unknown>('s', 42 as never), { instanceOf: TypeError, message: `nemo-lens: spanCm(name, [options,] fn) ${given}` });
  t.throws(() => spanCm<unknown>('s', {}, 42 as never), { instanceOf: TypeError, message: /got number 42\.$/ });
  t.throws(() => traceFn('step', 's')(42 as never), { instanceOf: TypeError, message: /traceFn\(group, name\)\(fn\) needs a callback function, got number 42\.$/ });
  t.deepEqual(finished(), [], 'no span was started');
});
