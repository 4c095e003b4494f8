/**
 * The hooks an OpenTelemetry user reaches for: `handle.forceFlush(timeoutMs)` (bounded, never
 * rejects) and the setup options `sampler`, `spanProcessors` and `resource`, checked with the
 * other options before anything is built.
 */
import { context, trace } from '@opentelemetry/api';
import test from 'ava';
import { NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { SpanRegistry, managedSpan, onWarning, setupTelemetry, type NemoLensWarning } from '../src/index';
import { resetTelemetry, setupTestTelemetry } from '../src/testing';
import { HangingExporter, RecordingExporter } from './helpers/exporters';

function captureWarnings(): NemoLensWarning[] & { stop(): void } {
  const warnings = [] as unknown as NemoLensWarning[] & { stop(): void };
  warnings.stop = onWarning((warning) => warnings.push(warning));
  return warnings;
}

const enabled = { enabled: true, spanGroups: 'all' } as const;

class CountingProcessor implements SpanProcessor {
  readonly ended: ReadableSpan[] = [];
  started = 0;
  flushes = 0;
  shutdowns = 0;
  onStart(): void {
    this.started++;
  }
  onEnd(span: ReadableSpan): void {
    this.ended.push(span);
  }
  async forceFlush(): Promise<void> {
    this.flushes++;
  }
  async shutdown(): Promise<void> {
    this.shutdowns++;
  }
}

test.beforeEach(async () => {
  await resetTelemetry();
  SpanRegistry.register('trainer', ['job', 'step']);
});

test.serial('forceFlush exports what the batch processor holds, without shutting down', async (t) => {
  const exporter = new RecordingExporter();
  const handle = setupTelemetry(enabled, { spanExporter: exporter });
  managedSpan('job', 'queued', () => undefined);
  t.deepEqual(exporter.getFinishedSpans(), [], 'batched: not exported yet (5 s schedule)');
  t.true(await handle.forceFlush());
  t.deepEqual(exporter.getFinishedSpans().map((span) => span.name), ['queued']);
  t.is(handle.pipeline, 'nemo-lens', 'still running');
  managedSpan('job', 'after-flush', () => undefined);
  await handle.shutdown();
  t.deepEqual(exporter.getFinishedSpans().map((span) => span.name), ['queued', 'after-flush']);
  t.false(await handle.forceFlush(), 'after shutdown there is nothing to flush into');
});

test.serial('forceFlush against an exporter that never answers resolves false within its bound and warns once', async (t) => {
  const handle = setupTelemetry(enabled, { spanExporter: new HangingExporter() });
  managedSpan('job', 'stuck', () => undefined);
  const warnings = captureWarnings();
  const started = performance.now();
  const flushed = await handle.forceFlush(200);
  const ms = performance.now() - started;
  warnings.stop();
  t.false(flushed);
  t.true(ms >= 190 && ms < 2000, `returned after ${Math.round(ms)} ms`);
  t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_FLUSH_TIMEOUT']);
  await handle.shutdown(100);
});

test.serial('forceFlush checks its argument like shutdown', async (t) => {
  const handle = setupTelemetry(enabled, { spanExporter: new RecordingExporter() });
  t.throws(() => handle.forceFlush(-1), { code: 'ERR_NEMO_LENS_INVALID_ARGUMENT', message: /forceFlush\(timeoutMs\) needs a number/ } as never);
  t.throws(() => handle.forceFlush('1' as never), { instanceOf: TypeError });
  await handle.shutdown();
  const dark = setupTelemetry({ enabled: false });
  t.false(await dark.forceFlush());
});

test.serial('sampler: the option decides, over OTEL_TRACES_SAMPLER', async (t) => {
  const exporter = new RecordingExporter();
  process.env['OTEL_TRACES_SAMPLER'] = 'always_off';
  try {
    const handle = setupTelemetry(enabled, { spanExporter: exporter, sampler: new AlwaysOnSampler() });
    managedSpan('job', 'kept', () => undefined);
    await handle.shutdown();
  } finally {
    delete process.env['OTEL_TRACES_SAMPLER'];
  }
  t.deepEqual(exporter.getFinishedSpans().map((span) => span.name), ['kept']);
  const dropped = new RecordingExporter();
  const handle = setupTelemetry(enabled, { spanExporter: dropped, sampler: new AlwaysOffSampler() });
  managedSpan('job', 'sampled-out', () => undefined);
  await handle.shutdown();
  t.deepEqual(dropped.getFinishedSpans(), []);
});

test.serial('spanProcessors run beside the exporter; flushed and shut down with the setup', async (t) => {
  const extra = new CountingProcessor();
  const exporter = new RecordingExporter();
  const handle = setupTelemetry(enabled, { spanExporter: exporter, spanProcessors: [extra] });
  managedSpan('job', 'both', () => managedSpan('step', 'inner', () => undefined));
  t.true(await handle.forceFlush());
  t.true(extra.flushes >= 1);
  await handle.shutdown();
  t.is(extra.started, 2);
  t.deepEqual(extra.ended.map((span) => span.name), ['inner', 'both']);
  t.is(extra.shutdowns, 1);
  t.deepEqual(exporter.getFinishedSpans().map((span) => span.name), ['inner', 'both']);
  // exporter "none" plus a processor: the processor is the pipeline.
  const only = new CountingProcessor();
  const alone = setupTelemetry({ ...enabled, exporter: 'none' }, { spanProcessors: [only] });
  t.is(alone.pipeline, 'nemo-lens');
  managedSpan('job', 'to-processor', () => undefined);
  await alone.shutdown();
  t.deepEqual(only.ended.map((span) => span.name), ['to-processor']);
});

test.serial('resource: merged over the one nemo-lens builds', async (t) => {
  const exporter = new RecordingExporter();
  const handle = setupTelemetry(
    { ...enabled, serviceName: 'trainer' },
    { spanExporter: exporter, resource: resourceFromAttributes({ 'deployment.environment.name': 'staging', 'service.version': '1.2.3' }), resourceAttributes: { rank: 1 } },
  );
  managedSpan('job', 'with-resource', () => undefined);
  await handle.shutdown();
  const attributes = exporter.getFinishedSpans()[0]!.resource.attributes;
  t.is(attributes['deployment.environment.name'], 'staging');
  t.is(attributes['service.version'], '1.2.3');
  t.is(attributes['service.name'], 'trainer', "nemo-lens's own attributes stay");
  t.is(attributes['dl.rank'], 1);
});

test.serial('the new options are checked with the others, before anything is built', (t) => {
  const refused = (options: object, message: RegExp) => t.throws(() => setupTelemetry(enabled, options as never), { instanceOf: TypeError, message });
  refused({ sampler: {} }, /option sampler must be an OpenTelemetry Sampler \(with shouldSample\), got/);
  refused({ spanProcessors: new CountingProcessor() }, /option spanProcessors must be an array of SpanProcessor/);
  refused({ spanProcessors: [new CountingProcessor(), { onStart() {} }] }, /spanProcessors\[1\] must be an OpenTelemetry SpanProcessor/);
  refused({ resource: { 'service.name': 'x' } }, /option resource must be an OpenTelemetry Resource \(e\.g\. resourceFromAttributes/);
  t.throws(() => setupTelemetry(enabled, { foreignSpans: 'ignore' } as never), { message: /foreignSpans must be "warn" or "export", got "ignore"/ });
  t.throws(() => setupTelemetry(enabled, { samplers: [] } as never), { message: /unknown setupTelemetry option "samplers"; the options are .*sampler, spanProcessors, resource/ });
  // Nothing was set up by the refused calls.
  t.notThrows(() => setupTelemetry(enabled, { spanExporter: new RecordingExporter() }));
});

test.serial('setupTestTelemetry records nemo-lens spans beside a host provider and under OTEL_SDK_DISABLED', async (t) => {
  const hostExporter = new RecordingExporter();
  const host = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(hostExporter)] });
  host.register();
  process.env['OTEL_SDK_DISABLED'] = 'true';
  const warnings = captureWarnings();
  try {
    const { handle, spans } = setupTestTelemetry();
    managedSpan('job', 'in-memory', () => undefined);
    await handle.shutdown();
    t.deepEqual(spans().map((span) => span.name), ['in-memory']);
    t.deepEqual(hostExporter.getFinishedSpans(), []);
    t.deepEqual(warnings.map((w) => w.code), [], 'a test setup chose its pipeline: nothing to warn about');
  } finally {
    warnings.stop();
    delete process.env['OTEL_SDK_DISABLED'];
    trace.disable();
    context.disable();
    await host.shutdown();
  }
});
