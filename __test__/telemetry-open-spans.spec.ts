/**
 * The open-span tracker (src/telemetry/open-spans.ts): spans still open at shutdown end
 * innermost first with the reference's truncation attribute and event; calls whose promise
 * can never settle do not keep memory (they are ended as "abandoned" once collected, and
 * reported once); a returned value whose `then` cannot be read still ends its span.
 */
import test from 'ava';

import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { BasicTracerProvider, type ReadableSpan, type Span, type SpanExporter } from '@opentelemetry/sdk-trace-base';

import { SpanRegistry, managedSpan, onWarning, setupTelemetry, spanCm, traceFn, type NemoLensWarning } from '../src/index';
import {
  ABANDONED_REASON,
  OpenSpanTracker,
  SHUTDOWN_REASON,
  TRUNCATED_ATTRIBUTE,
  TRUNCATED_EVENT,
  TRUNCATED_REASON_ATTRIBUTE,
} from '../src/telemetry/open-spans';
import { resetTelemetry, setupTestTelemetry } from '../src/testing';
import { RecordingExporter } from './helpers/exporters';
import { fullGc, mb, settledHeap } from './helpers/memory';

const warnings: NemoLensWarning[] = [];
onWarning((warning) => warnings.push(warning));

test.beforeEach(async () => {
  await resetTelemetry();
  SpanRegistry.register('trainer', ['job', 'step', 'off']);
  warnings.length = 0;
});

test.after.always(() => resetTelemetry());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

function reasonOf(span: ReadableSpan): unknown {
  return span.events.find((event) => event.name === TRUNCATED_EVENT)?.attributes?.[TRUNCATED_REASON_ATTRIBUTE];
}

test.serial('spans open at shutdown end innermost first (grandchild, child, parent), each marked with the reference event', async (t) => {
  const telemetry = setupTestTelemetry({ spanGroups: 'job,step' });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  // Started parent first; a sibling that finished must stay unmarked.
  void managedSpan('job', 'parent', () =>
    managedSpan('step', 'child', async () => {
      managedSpan('step', 'finished', () => undefined);
      await managedSpan('step', 'grandchild', () => gate);
    }),
  );
  const unrelated = spanCm('unrelated-root', () => gate);
  await tick();
  await telemetry.handle.shutdown(1000);
  release();
  await unrelated;
  const ended = telemetry.spans().map((span) => span.name);
  t.deepEqual(ended.slice(1).filter((name) => name !== 'unrelated-root'), ['grandchild', 'child', 'parent']);
  t.is(ended[0], 'finished');
  for (const span of telemetry.spans()) {
    if (span.name === 'finished') {
      t.is(span.attributes[TRUNCATED_ATTRIBUTE], undefined);
      t.is(reasonOf(span), undefined);
      continue;
    }
    t.is(span.attributes[TRUNCATED_ATTRIBUTE], true, span.name);
    t.is(reasonOf(span), 'still open at telemetry shutdown', span.name);
  }
  t.is(SHUTDOWN_REASON, 'still open at telemetry shutdown');
});

test.serial('a returned value whose then getter throws still ends the span and is handed back unchanged', async (t) => {
  const telemetry = setupTestTelemetry({ spanGroups: 'step' });
  const hostile = Object.defineProperty({}, 'then', {
    get() {
      throw new Error('then getter says no');
    },
  });
  t.is(managedSpan('step', 'getter', () => hostile), hostile);
  t.is(traceFn('step', 'traced')(() => hostile)(), hostile);
  t.is(spanCm('cm', () => hostile), hostile);
  const revocable = Proxy.revocable({}, {});
  revocable.revoke();
  t.is(managedSpan('step', 'revoked', () => revocable.proxy), revocable.proxy);
  t.deepEqual(
    telemetry.spans().map((span) => span.name),
    ['getter', 'traced', 'cm', 'revoked'],
  );
  // The disabled path hands back the same value without looking at it.
  t.is(managedSpan('off', 'disabled', () => hostile), hostile);
  t.is(managedSpan('off', 'disabled', () => revocable.proxy), revocable.proxy);
  t.is(telemetry.spans().length, 4);
});

/** Counts ended spans by truncation reason; keeps nothing else. */
class CountingExporter implements SpanExporter {
  exported = 0;
  readonly reasons = new Map<unknown, number>();
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.exported += spans.length;
    for (const span of spans) {
      const reason = reasonOf(span);
      this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
    }
    done({ code: ExportResultCode.SUCCESS });
  }
  async shutdown(): Promise<void> {}
  async forceFlush(): Promise<void> {}
}

const ABANDONED_CALLS = 100_000;

test.serial('10^5 calls whose promise never settles: heap growth under 10 MB, one warning, every span exported as abandoned', async (t) => {
  // Large enough that the batch processor's queue holds a burst of 10^5 abandoned spans.
  process.env['OTEL_BSP_MAX_QUEUE_SIZE'] = String(2 * ABANDONED_CALLS);
  process.env['OTEL_BSP_SCHEDULE_DELAY'] = '100'; // the last partial batch need not wait 5 s
  const exporter = new CountingExporter();
  const handle = setupTelemetry({ enabled: true, spanGroups: 'step' }, { spanExporter: exporter, allowReinit: true });
  delete process.env['OTEL_BSP_MAX_QUEUE_SIZE'];
  delete process.env['OTEL_BSP_SCHEDULE_DELAY'];
  const rpc = (i: number) => managedSpan('step', 'rpc', (span) => {
    span?.setAttribute('call', i);
    return new Promise<never>(() => undefined); // the RPC's answer never comes
  });
  const abandon = async (count: number) => {
    for (let i = 0; i < count; i++) {
      // The caller stops waiting, as after a Promise.race timeout, and drops the promise.
      void Promise.race([rpc(i), Promise.resolve('timed out')]);
      if (i % 1000 === 999) await tick();
    }
  };
  await abandon(2_000); // warm-up: SDK classes, inline caches
  await settle(() => exporter.exported >= 2_000);
  const baseline = settledHeap();
  let started = Date.now();
  await abandon(ABANDONED_CALLS);
  t.log(`calls: ${Date.now() - started} ms`);
  started = Date.now();
  await settle(() => exporter.exported >= 2_000 + ABANDONED_CALLS);
  t.log(`settle: ${Date.now() - started} ms`);
  const growth = settledHeap() - baseline;
  t.log(`heap growth after ${ABANDONED_CALLS} abandoned calls: ${mb(growth)}; exported ${exporter.exported}`);
  t.true(growth < 10 * 2 ** 20, `heap grew by ${mb(growth)}`);
  t.is(exporter.reasons.get(ABANDONED_REASON), 2_000 + ABANDONED_CALLS, 'every abandoned span exported, marked "abandoned"');
  const reported = warnings.filter((warning) => warning.code === 'NEMO_LENS_SPANS_ABANDONED');
  t.is(reported.length, 1, 'warned once');
  t.regex(reported[0]!.message, /\d+ spans were abandoned/);
  t.regex(reported[0]!.message, /nemo\.span\.truncated\.reason = "abandoned"/);
  await handle.shutdown(5000);
  t.is(exporter.exported, 2_000 + ABANDONED_CALLS, 'nothing left open for shutdown');
});

/** GC and let the tracker sweep until `done()` (a generous safety net, not a timing claim). */
async function settle(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!done() && Date.now() < deadline) {
    fullGc();
    await sleep(250);
  }
}

test.serial('a pending promise that is still referenced keeps its span open: only shutdown truncates it', async (t) => {
  const exporter = new RecordingExporter();
  const handle = setupTelemetry({ enabled: true, spanGroups: 'step' }, { spanExporter: exporter, allowReinit: true });
  let resolveLater: (() => void) | undefined;
  const held = managedSpan('step', 'held', () => new Promise<void>((resolve) => (resolveLater = resolve)));
  for (let i = 0; i < 3; i++) {
    fullGc();
    await sleep(1100); // across sweeps of the tracker
  }
  t.is(exporter.spans.length, 0, 'not ended while someone can still settle it');
  await handle.shutdown(1000);
  t.is(exporter.spans.length, 1);
  t.is(reasonOf(exporter.spans[0]!), SHUTDOWN_REASON);
  resolveLater!();
  await held;
  t.is(warnings.filter((warning) => warning.code === 'NEMO_LENS_SPANS_ABANDONED').length, 0);
});

test.serial('the tracker holds spans started on the tracer and dropped only weakly, and reports them', async (t) => {
  const tracker = new OpenSpanTracker({ sweepMs: 60_000 });
  const tracer = new BasicTracerProvider().getTracer('open-spans-test');
  const kept = tracer.startSpan('kept') as unknown as Span;
  tracker.onStart(kept, ROOT_CONTEXT);
  for (let i = 0; i < 500; i++) tracker.onStart(tracer.startSpan(`dropped-${i}`) as unknown as Span, ROOT_CONTEXT);
  tracker.sweep(); // ages them: weakly held from here on
  await tick(); // a WeakRef keeps its target alive until the end of the job that created it
  fullGc();
  tracker.sweep();
  t.is(tracker.counts.collectedOpen, 500);
  t.is(tracker.size, 1, 'the span someone still holds is still tracked');
  const reported = warnings.filter((warning) => warning.code === 'NEMO_LENS_SPANS_ABANDONED');
  t.is(reported.length, 1);
  t.regex(reported[0]!.message, /500 spans were garbage-collected before anything ended them/);
  t.is(tracker.endAll(), 1);
  t.true(kept.ended);
  t.is(kept.attributes[TRUNCATED_ATTRIBUTE], true);
});
