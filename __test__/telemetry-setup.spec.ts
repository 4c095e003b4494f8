import { ProxyTracerProvider, context, trace } from '@opentelemetry/api';
import { NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import test from 'ava';

import {
  NemoLensConfig,
  SpanRegistry,
  enabledSpanGroups,
  isSpanGroupEnabled,
  managedSpan,
  setupTelemetry,
} from '../src/index';
import { CryptoIdGenerator } from '../src/telemetry/ids';
import { installTelemetry } from '../src/telemetry/setup';
import { resetTelemetry, setupTestTelemetry } from '../src/testing';
import { HangingExporter, RecordingExporter, SwitchableExporter, ThrowingExporter } from './helpers/exporters';
import { captureWarnings, withEnv } from './helpers/env-warnings';

const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();
const enabled = (spanGroups = 'all') => new NemoLensConfig({ enabled: true, spanGroups });

test.beforeEach(async () => {
  await resetTelemetry();
  SpanRegistry.register('trainer', ['job', 'step', 'layer'], { default: ['job'], per_step: ['job', 'step'] });
});

function globalProvider(): unknown {
  return (trace.getTracerProvider() as ProxyTracerProvider).getDelegate();
}


test.serial('an enabled setup registers a provider, applies the spec and sets the setup flag', async (t) => {
  const exporter = new RecordingExporter();
  const handle = setupTelemetry(enabled('per_step'), { spanExporter: exporter });
  t.true(handle.isExporting);
  t.not(globalProvider(), NOOP_PROVIDER);
  t.deepEqual([...enabledSpanGroups()].sort(), ['job', 'step']);
  managedSpan('job', 'job', () => managedSpan('step', 'step', () => managedSpan('layer', 'layer', () => undefined)));
  await handle.shutdown();
  const spans = exporter.getFinishedSpans();
  t.deepEqual(spans.map((span) => span.name), ['step', 'job']);
  t.is(spans[0]!.parentSpanContext?.spanId, spans[1]!.spanContext().spanId);
  t.is(globalProvider(), NOOP_PROVIDER, 'shutdown gives the global provider back');
});

test.serial('a second enabled setup throws ERR_NEMO_LENS_ALREADY_INITIALIZED and changes nothing', async (t) => {
  const first = new RecordingExporter();
  const handle = setupTelemetry(enabled('job'), { spanExporter: first });
  const error = t.throws(() => setupTelemetry(enabled('all'), { spanExporter: new RecordingExporter() }), {
    message: /already set up.*shutdown\(\).*allowReinit: true/,
  });
  t.is((error as { code?: string }).code, 'ERR_NEMO_LENS_ALREADY_INITIALIZED');
  t.true(handle.isExporting);
  t.deepEqual([...enabledSpanGroups()], ['job'], 'the first spec still holds');
  managedSpan('job', 'still-first', () => undefined);
  await handle.shutdown();
  t.deepEqual(first.getFinishedSpans().map((span) => span.name), ['still-first']);
});

test.serial('allowReinit shuts the previous setup down and replaces it', async (t) => {
  const first = new RecordingExporter();
  const second = new RecordingExporter();
  const one = setupTelemetry(enabled('job'), { spanExporter: first });
  managedSpan('job', 'to-first', () => undefined);
  const two = setupTelemetry(enabled('all'), { spanExporter: second, allowReinit: true });
  t.false(one.isExporting);
  t.true(two.isExporting);
  managedSpan('layer', 'to-second', () => undefined);
  await one.shutdown(); // already under way: the same promise, and it flushed what it had
  await two.shutdown();
  t.deepEqual(first.getFinishedSpans().map((span) => span.name), ['to-first']);
  t.deepEqual(second.getFinishedSpans().map((span) => span.name), ['to-second']);
});

test.serial('after shutdown, a new setup is allowed without allowReinit', async (t) => {
  await setupTelemetry(enabled(), { spanExporter: new RecordingExporter() }).shutdown();
  const again = setupTelemetry(enabled(), { spanExporter: new RecordingExporter() });
  t.true(again.isExporting);
  await again.shutdown();
});

test.serial('a disabled setup: no-op tracer, nothing enabled (pinned), not exporting', async (t) => {
  const handle = setupTelemetry(new NemoLensConfig({ enabled: false, spanGroups: 'all' }));
  t.false(handle.isExporting);
  t.is(globalProvider(), NOOP_PROVIDER, 'no provider registered');
  const span = handle.tracer.startSpan('x');
  t.false(span.isRecording());
  span.end();
  t.deepEqual([...enabledSpanGroups()], []);
  SpanRegistry.register('late', ['anything']);
  t.false(isSpanGroupEnabled('anything'), 'pinned: later registrations stay dark');
  const warnings = captureWarnings();
  SpanRegistry.register('later', ['more']);
  warnings.stop();
  t.deepEqual(warnings.map((w) => w.code), [], 'no late-registration warning for a disabled setup');
  const stopped = handle.shutdown();
  t.is(handle.shutdown(), stopped);
  await stopped;
});

test.serial('a disabled setup while an enabled one is active throws unless allowReinit', async (t) => {
  const handle = setupTelemetry(enabled(), { spanExporter: new RecordingExporter() });
  t.throws(() => setupTelemetry({ enabled: false }), { message: /already set up/ });
  t.true(isSpanGroupEnabled('job'));
  const dark = setupTelemetry({ enabled: false }, { allowReinit: true });
  t.false(handle.isExporting);
  t.false(dark.isExporting);
  t.false(isSpanGroupEnabled('job'));
});

test.serial('a config as a plain object, and setupTelemetry() reading the environment', async (t) => {
  const handle = setupTelemetry({ enabled: true, spanGroups: 'step', exporter: 'none' });
  t.false(handle.isExporting, 'exporter "none": spans are made but go nowhere');
  t.true(isSpanGroupEnabled('step'));
  managedSpan('step', 'recorded', (span) => t.true(span?.isRecording()));
  await handle.shutdown();
  await withEnv({ NEMO_LENS_ENABLED: 'yes', NEMO_LENS_SPAN_GROUPS: 'layer', NEMO_LENS_EXPORTER: 'none' }, async () => {
    const fromEnv = setupTelemetry();
    t.deepEqual([...enabledSpanGroups()], ['layer']);
    await fromEnv.shutdown();
  });
});

test.serial('invalid input throws before anything is created', async (t) => {
  const cases: Array<[string, () => unknown, RegExp]> = [
    ['unknown option', () => setupTelemetry(enabled(), { spanExportr: new RecordingExporter() } as never), /unknown setupTelemetry option "spanExportr"/],
    ['bad exporter', () => setupTelemetry(enabled(), { spanExporter: {} as never }), /spanExporter must be an OpenTelemetry SpanExporter/],
    ['bad allowReinit', () => setupTelemetry(enabled(), { allowReinit: 'yes' as never }), /allowReinit must be a boolean/],
    ['bad config key', () => setupTelemetry({ enabled: true, exporter: 'zipkin' as never }), /"zipkin" is not an exporter/],
    ['bad rank', () => setupTelemetry(enabled(), { resourceAttributes: { rank: -1 } }), /resourceAttributes\["rank"\] must be an integer >= 0/],
    ['rank beyond world size', () => setupTelemetry(enabled(), { resourceAttributes: { 'dl.rank': 4, worldSize: '4' } }), /rank 4 is not below world size 4/],
    ['rank given twice', () => setupTelemetry(enabled(), { resourceAttributes: { 'dl.rank': 1, rank: 1 } }), /gives "dl.rank" twice/],
    ['object attribute', () => setupTelemetry(enabled(), { resourceAttributes: { team: { a: 1 } as never } }), /resourceAttributes\["team"\] must be a string/],
  ];
  for (const [title, call, message] of cases) t.throws(call, { message }, title);
  await withEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/xml' }, () => {
    const error = t.throws(() => setupTelemetry(enabled()), { message: /OTEL_EXPORTER_OTLP_PROTOCOL="http\/xml" is not an OTLP protocol; use one of http\/protobuf, http\/json, grpc/ });
    t.is((error as { code?: string }).code, 'ERR_NEMO_LENS_INVALID_CONFIG');
  });
  t.is(globalProvider(), NOOP_PROVIDER);
  t.deepEqual([...enabledSpanGroups()], []);
  const warnings = captureWarnings();
  SpanRegistry.register('after', ['x']);
  warnings.stop();
  t.false(warnings.some((w) => w.code === 'NEMO_LENS_LATE_REGISTRATION'), 'the setup flag was never set');
});

test.serial('shutdown is idempotent: the same promise, and it never rejects', async (t) => {
  const handle = setupTelemetry(enabled(), { spanExporter: new ThrowingExporter() });
  managedSpan('job', 'doomed', () => undefined);
  const warnings = captureWarnings();
  const first = handle.shutdown();
  t.is(handle.shutdown(), first);
  t.is(handle.shutdown(10), first);
  await t.notThrowsAsync(first);
  warnings.stop();
  t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_EXPORT_FAILED']);
  t.regex(warnings[0]!.message, /exporter bug/);
  t.false(handle.isExporting);
});

test.serial('shutdown(timeoutMs) checks its argument', (t) => {
  const handle = setupTelemetry(enabled(), { spanExporter: new RecordingExporter() });
  t.throws(() => handle.shutdown(-1), { message: /shutdown\(timeoutMs\) needs a number of milliseconds >= 0/ });
  t.throws(() => handle.shutdown('5s' as never), { message: /got "5s"/ });
  t.true(handle.isExporting, 'a refused call changes nothing');
});

test.serial('shutdown resolves within its bound when the exporter never answers', async (t) => {
  const exporter = new HangingExporter();
  const handle = setupTelemetry(enabled(), { spanExporter: exporter });
  managedSpan('job', 'stuck', () => undefined);
  const warnings = captureWarnings();
  const started = Date.now();
  await handle.shutdown(100);
  const elapsed = Date.now() - started;
  warnings.stop();
  t.true(elapsed < 3000, `took ${elapsed} ms`);
  t.is(exporter.calls, 1);
  t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_SHUTDOWN_TIMEOUT'], 'one warning: the export abandoned by the timeout is not reported again');
  t.regex(warnings[0]!.message, /within 100 ms \(the injected exporter \(HangingExporter\) did not answer\)/);
});

test.serial('spans still open at shutdown are ended and marked truncated', async (t) => {
  const exporter = new RecordingExporter();
  const handle = setupTelemetry(enabled(), { spanExporter: exporter });
  let release!: () => void;
  const pending = managedSpan('job', 'job', () =>
    managedSpan('step', 'finished-step', () => undefined) ?? new Promise<void>((resolve) => (release = resolve)),
  );
  const orphan = handle.tracer.startSpan('never-ended');
  await handle.shutdown();
  const byName = new Map(exporter.getFinishedSpans().map((span) => [span.name, span]));
  t.deepEqual([...byName.keys()].sort(), ['finished-step', 'job', 'never-ended']);
  t.is(byName.get('job')!.attributes['nemo.span.truncated'], true);
  t.is(byName.get('never-ended')!.attributes['nemo.span.truncated'], true);
  t.is(byName.get('finished-step')!.attributes['nemo.span.truncated'], undefined);
  release();
  await pending; // ending an already-ended span later is harmless
  orphan.end();
  t.is(exporter.getFinishedSpans().length, 3);
});

test.serial('registering after an enabled setup warns and takes effect', async (t) => {
  const handle = setupTelemetry(enabled('all'), { spanExporter: new RecordingExporter() });
  const warnings = captureWarnings();
  SpanRegistry.register('rl', ['rollout']);
  warnings.stop();
  t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_LATE_REGISTRATION']);
  t.true(isSpanGroupEnabled('rollout'));
  await handle.shutdown();
  const after = captureWarnings();
  SpanRegistry.register('after-shutdown', ['x']);
  after.stop();
  t.false(after.some((w) => w.code === 'NEMO_LENS_LATE_REGISTRATION'), 'shutdown clears the setup flag');
});

test.serial('many failed exports give one warning per run of failures', async (t) => {
  const exporter = new SwitchableExporter();
  const warnings = captureWarnings();
  // Export per span (simple processor) to make each span its own failed export.
  const handle = installTelemetry(enabled(), { spanExporter: exporter }, { processor: 'simple' });
  for (let i = 0; i < 50; i++) managedSpan('step', `s${i}`, () => undefined);
  t.is(exporter.calls, 50);
  t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_EXPORT_FAILED']);
  t.regex(warnings[0]!.message, /exporting 1 span to the injected exporter \(SwitchableExporter\) failed: collector says no/);
  exporter.failing = false;
  managedSpan('step', 'recovered', () => undefined);
  exporter.failing = true;
  for (let i = 0; i < 10; i++) managedSpan('step', `t${i}`, () => undefined);
  warnings.stop();
  t.is(warnings.length, 2, 'a success ends the run; the next outage warns again');
  await handle.shutdown();
});

test.serial('batched failed exports also warn once', async (t) => {
  await withEnv({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '5' }, async () => {
    const exporter = new SwitchableExporter();
    const warnings = captureWarnings();
    const handle = setupTelemetry(enabled(), { spanExporter: exporter });
    for (let i = 0; i < 40; i++) managedSpan('step', `s${i}`, () => undefined);
    await handle.shutdown();
    warnings.stop();
    t.true(exporter.calls >= 8, `${exporter.calls} export calls`);
    t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_EXPORT_FAILED']);
  });
});

test.serial('tracesEnabled: false installs no provider but applies the spec; spans go to the host SDK', async (t) => {
  const hostExporter = new RecordingExporter();
  const host = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(hostExporter)] });
  host.register();
  try {
    const handle = setupTelemetry(new NemoLensConfig({ enabled: true, tracesEnabled: false, spanGroups: 'per_step' }));
    t.is(handle.pipeline, 'host', 'gated spans flow to the host SDK');
    t.true(handle.isExporting);
    t.is(globalProvider(), host);
    t.deepEqual([...enabledSpanGroups()].sort(), ['job', 'step']);
    managedSpan('job', 'via-host', () => undefined);
    t.deepEqual(hostExporter.getFinishedSpans().map((span) => span.name), ['via-host']);
    const warnings = captureWarnings();
    SpanRegistry.register('rl', ['rollout']);
    warnings.stop();
    t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_LATE_REGISTRATION']);
    t.throws(() => setupTelemetry(enabled()), { message: /already set up/ });
    await handle.shutdown();
    t.is(handle.pipeline, 'none');
    t.is(globalProvider(), host, 'shutdown leaves the host provider alone');
  } finally {
    trace.disable();
    context.disable();
    await host.shutdown();
  }
});

test.serial('with a host provider already registered, an enabled setup sends its spans through it (one pipeline) and says so', async (t) => {
  const hostExporter = new RecordingExporter();
  const host = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(hostExporter)] });
  host.register();
  try {
    const ours = new RecordingExporter();
    const warnings = captureWarnings();
    const handle = setupTelemetry(enabled(), { spanExporter: ours });
    warnings.stop();
    t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_HOST_SDK_PRESENT']);
    t.regex(warnings[0]!.message, /NodeTracerProvider.*spanExporter/s, 'names the host provider and the option it leaves unused');
    t.is(handle.pipeline, 'host');
    managedSpan('job', 'ours', () => undefined);
    await handle.shutdown();
    t.deepEqual(hostExporter.getFinishedSpans().map((span) => span.name), ['ours']);
    t.deepEqual(ours.getFinishedSpans(), [], "nemo-lens's exporter is not used beside the host's");
    t.is(globalProvider(), host);
  } finally {
    trace.disable();
    context.disable();
    await host.shutdown();
  }
});

test.serial('the resource: service, run, user, rank identity', async (t) => {
  const exporter = new RecordingExporter();
  const config = new NemoLensConfig({ enabled: true, serviceName: 'trainer', runId: 'run-9', userId: 'alice' });
  const handle = setupTelemetry(config, { spanExporter: exporter, resourceAttributes: { rank: '3', worldSize: 8, team: 'rl', tags: ['a', 'b'] } });
  handle.tracer.startSpan('x').end();
  await handle.shutdown();
  const attributes = exporter.getFinishedSpans()[0]!.resource.attributes;
  t.like(attributes, {
    'service.name': 'trainer',
    'nemo.run.id': 'run-9',
    'nemo.user.id': 'alice',
    'dl.rank': 3,
    'dl.world_size': 8,
    'service.instance.id': 'run-9-rank3',
    team: 'rl',
    'process.pid': process.pid,
  });
  t.deepEqual(attributes['tags'], ['a', 'b']);
  t.is(attributes['rank'], undefined, 'aliases are folded into dl.*');
});

test.serial('the run id falls back to SLURM_JOB_ID, then to a random UUID; OTEL_RESOURCE_ATTRIBUTES is honoured', async (t) => {
  const runIdOf = async (resourceAttributes?: Record<string, string | number>) => {
    const exporter = new RecordingExporter();
    const handle = setupTelemetry(enabled(), { spanExporter: exporter, resourceAttributes });
    handle.tracer.startSpan('x').end();
    await handle.shutdown();
    return exporter.getFinishedSpans()[0]!.resource.attributes;
  };
  await withEnv({ SLURM_JOB_ID: '123456', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test,team=from-env' }, async () => {
    const attributes = await runIdOf({ 'dl.rank': 0 });
    t.like(attributes, { 'nemo.run.id': '123456', 'service.instance.id': '123456-rank0', 'deployment.environment': 'test', team: 'from-env' });
    t.is((await runIdOf({ team: 'explicit' }))['team'], 'explicit', 'explicit resourceAttributes win over the environment');
  });
  await withEnv({ SLURM_JOB_ID: undefined, OTEL_RESOURCE_ATTRIBUTES: undefined }, async () => {
    const one = (await runIdOf())['nemo.run.id'];
    const two = (await runIdOf())['nemo.run.id'];
    t.regex(String(one), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    t.not(one, two);
    const instance = (await runIdOf())['service.instance.id'];
    t.regex(String(instance), /^[0-9a-f-]{36}$/, 'no rank: a per-process UUID, never the bare run id (issue 13, item 3)');
    t.not(instance, one);
  });
});

test.serial('span and trace ids: lowercase hex of the right length, unique, never all zero', (t) => {
  const ids = new CryptoIdGenerator();
  const traces = new Set<string>();
  const spans = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const traceId = ids.generateTraceId();
    const spanId = ids.generateSpanId();
    t.regex(traceId, /^[0-9a-f]{32}$/);
    t.regex(spanId, /^[0-9a-f]{16}$/);
    traces.add(traceId);
    spans.add(spanId);
  }
  t.is(traces.size, 2000);
  t.is(spans.size, 2000);
  // Force a pool of zero bytes: the generator must skip them rather than hand out an invalid id.
  const zeroed = new CryptoIdGenerator() as unknown as { pool: Buffer; offset: number; generateSpanId(): string };
  zeroed.generateSpanId();
  zeroed.pool.fill(0);
  zeroed.offset = 0;
  t.not(zeroed.generateSpanId(), '0000000000000000');
});

test.serial('spans of a setup use the crypto id generator', async (t) => {
  const exporter = new RecordingExporter();
  const handle = setupTelemetry(enabled(), { spanExporter: exporter });
  handle.tracer.startSpan('x').end();
  await handle.shutdown();
  t.regex(exporter.getFinishedSpans()[0]!.spanContext().traceId, /^[0-9a-f]{32}$/);
});

test.serial('nemo-lens/testing: setupTestTelemetry records spans as they end; resetTelemetry shuts it down', async (t) => {
  const { handle, spans } = setupTestTelemetry({ spanGroups: 'step', resourceAttributes: { rank: 1 } });
  managedSpan('step', 'visible-at-once', () => undefined);
  managedSpan('job', 'gated-off', () => undefined);
  t.deepEqual(spans().map((span) => span.name), ['visible-at-once']);
  t.is(spans()[0]!.resource.attributes['dl.rank'], 1);
  const again = setupTestTelemetry(); // replaces the first without ceremony
  t.false(handle.isExporting);
  await resetTelemetry();
  t.false(again.handle.isExporting);
  t.is(globalProvider(), NOOP_PROVIDER);
  t.deepEqual(SpanRegistry.namespaces(), []);
  t.deepEqual(spans().map((span) => span.name), ['visible-at-once'], 'still readable after shutdown');
});

test.serial('shutdown with a huge or infinite bound waits for the exporter (no instant timer overflow)', async (t) => {
  for (const bound of [Infinity, 1e12]) {
    const exporter = new RecordingExporter();
    const handle = setupTelemetry(enabled(), { spanExporter: exporter });
    managedSpan('job', 'kept', () => undefined);
    const warnings = captureWarnings();
    await handle.shutdown(bound);
    warnings.stop();
    t.is(warnings.length, 0);
    t.deepEqual(exporter.spans.map((span) => span.name), ['kept']);
  }
});
