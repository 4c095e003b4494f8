/**
 * Nested spans nest in time: every nemo-lens span takes its start and end from one
 * high-resolution clock (src/clock.ts), so no child starts before or ends after its parent.
 * With the SDK's own stamps (Date.now() starts, performance.now() durations) a quick check
 * found 34 violations in 300 nested spans.
 */
import test from 'ava';
import { SpanRegistry, managedSpan, spanCm, traceFn } from '../src/index';
import { hrNow } from '../src/clock';
import { resetTelemetry, setupTestTelemetry } from '../src/testing';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';

const ns = ([seconds, nanos]: readonly [number, number]) => BigInt(seconds) * 1_000_000_000n + BigInt(nanos);

function violations(spans: ReadableSpan[]): string[] {
  const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
  const found: string[] = [];
  for (const span of spans) {
    const parent = byId.get(span.parentSpanContext?.spanId ?? '');
    if (parent === undefined) continue;
    if (ns(span.startTime) < ns(parent.startTime)) found.push(`${span.name} starts before ${parent.name}`);
    if (ns(span.endTime) > ns(parent.endTime)) found.push(`${span.name} ends after ${parent.name}`);
  }
  return found;
}

test.beforeEach(async () => {
  await resetTelemetry();
  SpanRegistry.register('trainer', ['job', 'step', 'layer']);
});

test.serial('hrNow is monotonic and close to Date.now()', (t) => {
  let previous = ns(hrNow());
  for (let i = 0; i < 100_000; i++) {
    const now = ns(hrNow());
    if (now < previous) t.fail(`went back by ${previous - now} ns`);
    previous = now;
  }
  const drift = Number(ns(hrNow()) / 1_000_000n) - Date.now();
  t.true(Math.abs(drift) < 1000, `hrNow is within 1 s of Date.now() (${drift} ms)`);
});

test.serial('802 nested spans (sync, async, traceFn, spanCm, truncated at shutdown): zero violations', async (t) => {
  const { handle, spans } = setupTestTelemetry();
  const leaf = traceFn('layer', 'leaf')(() => undefined);
  for (let i = 0; i < 100; i++) {
    await managedSpan('job', `job-${i}`, async () => {
      managedSpan('step', 'sync-step', () => {
        for (let j = 0; j < 3; j++) leaf();
      });
      await managedSpan('step', 'async-step', async () => {
        await new Promise((resolve) => setImmediate(resolve));
        spanCm('ungated', () => leaf());
      });
    });
  }
  // Spans still open at shutdown are ended together, inner ones included.
  void managedSpan('job', 'open-job', () => managedSpan('step', 'open-step', () => new Promise(() => undefined)));
  await handle.shutdown();
  const all = spans();
  t.is(all.length, 100 * 8 + 2);
  t.deepEqual(violations(all), []);
});
