/** Export trouble is reported once: dropped spans once per run of drops, an outage once even when shutdown then times out. */
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import test from 'ava';

import { SpanRegistry, managedSpan, onWarning, setupTelemetry, type NemoLensWarning } from '../src/index';
import { resetTelemetry } from '../src/testing';

/** An exporter that holds every batch until `release()` answers them all with success. */
function heldExporter() {
  const held: Array<{ spans: ReadableSpan[]; done: (result: ExportResult) => void }> = [];
  let received = 0;
  const exporter: SpanExporter = {
    export: (spans, done) => {
      received += spans.length;
      held.push({ spans, done });
    },
    shutdown: async () => undefined,
  };
  return {
    exporter,
    /** Spans handed to the exporter so far. */
    exported: () => received,
    release: () => {
      for (const batch of held.splice(0)) batch.done({ code: 0 });
    },
  };
}

/** Run `body` with the batch processor's limits set through the standard variables. */
async function withLimits(queue: number, batch: number, body: () => Promise<void>): Promise<void> {
  const saved = { queue: process.env['OTEL_BSP_MAX_QUEUE_SIZE'], batch: process.env['OTEL_BSP_MAX_EXPORT_BATCH_SIZE'] };
  process.env['OTEL_BSP_MAX_QUEUE_SIZE'] = String(queue);
  process.env['OTEL_BSP_MAX_EXPORT_BATCH_SIZE'] = String(batch);
  try {
    await body();
  } finally {
    for (const [name, value] of [
      ['OTEL_BSP_MAX_QUEUE_SIZE', saved.queue],
      ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE', saved.batch],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

const emit = (n: number): void => {
  for (let i = 0; i < n; i++) managedSpan('step', 'span', () => undefined);
};

test.serial('spans dropped on a full queue warn once per run of drops; the next run warns again', async (t) => {
  await resetTelemetry();
  const warnings: NemoLensWarning[] = [];
  const stop = onWarning((warning) => void (warning.code !== 'NEMO_LENS_NO_RANK' && warnings.push(warning)));
  const dropped = () => warnings.filter((w) => w.code === 'NEMO_LENS_SPANS_DROPPED');
  const held = heldExporter();
  try {
    await withLimits(4, 2, async () => {
      SpanRegistry.register('app', ['step']);
      const telemetry = setupTelemetry({ enabled: true, spanGroups: 'step' }, { spanExporter: held.exporter });
      emit(2); // a full batch: handed to the exporter at once, which holds it
      t.is(held.exported(), 2);
      emit(4); // the queue fills while the exporter is busy
      t.deepEqual(dropped(), [], 'a full queue is not yet a drop');
      emit(30); // 30 drops
      t.is(dropped().length, 1, 'one warning for the run');
      t.regex(dropped()[0]!.message, /4 spans waiting/);
      t.regex(dropped()[0]!.message, /OTEL_BSP_MAX_QUEUE_SIZE/);

      held.release(); // the exporter answers; the processor hands it the next batch
      await new Promise((resolve) => setImmediate(resolve));
      t.is(held.exported(), 4, 'the next batch left the queue');
      emit(2); // room again: accepted, the run of drops is over
      t.is(dropped().length, 1);
      emit(1); // full again: a new run
      t.is(dropped().length, 2);
      held.release();
      await telemetry.shutdown(1000);
    });
  } finally {
    stop();
    await resetTelemetry();
  }
});

test.serial('a shutdown that times out during a reported outage adds no second warning', async (t) => {
  await resetTelemetry();
  const warnings: NemoLensWarning[] = [];
  const stop = onWarning((warning) => void (warning.code !== 'NEMO_LENS_NO_RANK' && warnings.push(warning)));
  let calls = 0;
  // The first export fails (the outage is reported); every later one never answers.
  const exporter: SpanExporter = {
    export: (_spans, done) => {
      calls++;
      if (calls === 1) done({ code: 1, error: new Error('ECONNREFUSED') });
    },
    shutdown: async () => undefined,
  };
  try {
    await withLimits(100, 2, async () => {
      SpanRegistry.register('app', ['step']);
      const telemetry = setupTelemetry({ enabled: true, spanGroups: 'step' }, { spanExporter: exporter });
      emit(2); // a full batch, exported at once: fails
      await new Promise((resolve) => setImmediate(resolve));
      emit(1); // queued until shutdown flushes it into the exporter, which now never answers
      await telemetry.shutdown(200);
      t.true(calls >= 2);
      t.deepEqual(
        warnings.map((w) => w.code),
        ['NEMO_LENS_EXPORT_FAILED'],
      );
    });
  } finally {
    stop();
    await resetTelemetry();
  }
});

test.serial('a shutdown that times out with no outage reported says so', async (t) => {
  await resetTelemetry();
  const warnings: NemoLensWarning[] = [];
  const stop = onWarning((warning) => void (warning.code !== 'NEMO_LENS_NO_RANK' && warnings.push(warning)));
  const held = heldExporter();
  try {
    await withLimits(100, 2, async () => {
      SpanRegistry.register('app', ['step']);
      const telemetry = setupTelemetry({ enabled: true, spanGroups: 'step' }, { spanExporter: held.exporter });
      emit(1); // stays queued until shutdown flushes it into the exporter, which never answers
      await telemetry.shutdown(200);
      t.is(held.exported(), 1);
      t.deepEqual(
        warnings.map((w) => w.code),
        ['NEMO_LENS_SHUTDOWN_TIMEOUT'],
      );
    });
  } finally {
    stop();
    await resetTelemetry();
  }
});
