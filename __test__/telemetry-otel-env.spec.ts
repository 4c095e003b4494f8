/**
 * The standard OTEL_* variables: OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER (and its precedence
 * under NEMO_LENS_EXPORTER), OTEL_PROPAGATORS, OTEL_LOG_LEVEL, OTEL_NODE_RESOURCE_DETECTORS,
 * and the sampler, limit and batch variables @opentelemetry/sdk-trace leaves to its callers.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ROOT_CONTEXT, propagation, trace, TraceFlags } from '@opentelemetry/api';
import test from 'ava';
import { NemoLensConfig, SpanRegistry, isSpanGroupEnabled, managedSpan, setupTelemetry } from '../src/index';
import { batchLimitsFromEnv, resetOtelEnvReports, spanLimitsFromEnv } from '../src/telemetry/otel-env';
import { resetTelemetry, setupTestTelemetry } from '../src/testing';
import { RecordingExporter } from './helpers/exporters';
import { captureWarnings, withEnv } from './helpers/env-warnings';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..');


test.beforeEach(async () => {
  await resetTelemetry();
  resetOtelEnvReports();
  SpanRegistry.register('trainer', ['job', 'step']);
});

test.serial('OTEL_SDK_DISABLED=true: an enabled setup is a dark one', async (t) => {
  const exporter = new RecordingExporter();
  await withEnv({ OTEL_SDK_DISABLED: 'TRUE' }, async () => {
    const handle = setupTelemetry({ enabled: true, spanGroups: 'all' }, { spanExporter: exporter });
    t.is(handle.pipeline, 'none');
    t.false(handle.isExporting);
    t.false(isSpanGroupEnabled('job'));
    managedSpan('job', 'dark', () => undefined);
    t.false(await handle.forceFlush(100));
    await handle.shutdown();
  });
  t.deepEqual(exporter.getFinishedSpans(), []);
  await withEnv({ OTEL_SDK_DISABLED: 'false' }, async () => {
    const handle = setupTelemetry({ enabled: true, spanGroups: 'all' }, { spanExporter: exporter });
    t.is(handle.pipeline, 'nemo-lens', 'only "true" disables, as the spec says');
    await handle.shutdown();
  });
});

test.serial('OTEL_TRACES_EXPORTER: otlp, console, none; NEMO_LENS_EXPORTER wins over it', (t) => {
  const exporter = (env: Record<string, string>) => NemoLensConfig.fromEnv({ env }).exporter;
  t.is(exporter({}), 'otlp');
  t.is(exporter({ OTEL_TRACES_EXPORTER: 'none' }), 'none');
  t.is(exporter({ OTEL_TRACES_EXPORTER: ' Console ' }), 'console');
  t.is(exporter({ OTEL_TRACES_EXPORTER: 'otlp' }), 'otlp');
  t.is(exporter({ OTEL_TRACES_EXPORTER: 'none', NEMO_LENS_EXPORTER: 'console' }), 'console', 'NEMO_LENS_EXPORTER first');
  t.is(
    NemoLensConfig.fromEnv({ prefix: 'MY_LENS', fallbackPrefix: 'NEMO_LENS', env: { OTEL_TRACES_EXPORTER: 'none', NEMO_LENS_EXPORTER: 'console' } }).exporter,
    'console',
    'either prefix beats OTEL_TRACES_EXPORTER',
  );
  const warnings = captureWarnings();
  t.is(exporter({ OTEL_TRACES_EXPORTER: 'zipkin' }), 'otlp');
  t.is(exporter({ OTEL_TRACES_EXPORTER: 'console,otlp' }), 'console');
  t.is(exporter({ OTEL_TRACES_EXPORTER: 'otlp,none' }), 'none', 'none anywhere means none');
  warnings.stop();
  t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_OTEL_ENV_UNSUPPORTED', 'NEMO_LENS_OTEL_ENV_UNSUPPORTED']);
  t.regex(warnings[0]!.message, /OTEL_TRACES_EXPORTER="zipkin".*otlp is used/);
});

test.serial('OTEL_PROPAGATORS chooses the global propagator: default both, tracecontext, baggage, none', async (t) => {
  const fields = async (value: string | undefined) =>
    withEnv({ OTEL_PROPAGATORS: value }, async () => {
      const { handle } = setupTestTelemetry();
      const result = propagation.fields().sort();
      await handle.shutdown();
      return result;
    });
  t.deepEqual(await fields(undefined), ['baggage', 'traceparent', 'tracestate']);
  t.deepEqual(await fields('tracecontext'), ['traceparent', 'tracestate']);
  t.deepEqual(await fields('baggage'), ['baggage']);
  t.deepEqual(await fields('none'), []);
  const warnings = captureWarnings();
  t.deepEqual(await fields('b3, tracecontext'), ['traceparent', 'tracestate']);
  warnings.stop();
  t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_OTEL_ENV_UNSUPPORTED']);
  t.regex(warnings[0]!.message, /b3 skipped/);
  // With none, nothing is injected through the global API.
  await withEnv({ OTEL_PROPAGATORS: 'none' }, async () => {
    const { handle } = setupTestTelemetry();
    const carrier: Record<string, string> = {};
    const remote = trace.setSpanContext(ROOT_CONTEXT, { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED });
    propagation.inject(remote, carrier);
    t.deepEqual(carrier, {});
    await handle.shutdown();
  });
});

/** A port on 127.0.0.1 that nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test.serial('OTEL_LOG_LEVEL: the diag logger tells stderr why the collector cannot be reached; unset, it says nothing', async (t) => {
  const port = await closedPort();
  const child = async (level: string | undefined) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_') && !key.startsWith('NEMO_LENS_') && key !== 'TRACEPARENT'));
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', '--no-warnings', path.join(__dirname, 'helpers', 'otel-env-child.ts')], {
      cwd: ROOT,
      timeout: 60_000,
      env: {
        ...env,
        ...(level === undefined ? {} : { OTEL_LOG_LEVEL: level }),
        NEMO_LENS_BACKEND: process.env['NEMO_LENS_BACKEND'] ?? '',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
      },
    });
    return { stdout, diag: stderr.split('\n').filter((line) => line.startsWith('otel ')) };
  };
  const debug = await child('debug');
  t.true(debug.diag.length > 0, 'diag lines on stderr');
  // The OTLP exporter's own account of the outage ("Export retry time ... not retrying further", or the refused connection).
  t.true(debug.diag.some((line) => /retry|ECONNREFUSED/i.test(line)), debug.diag.join('\n'));
  t.is(debug.stdout, '', 'nothing on stdout');
  const error = await child('ERROR');
  t.true(error.diag.every((line) => line.startsWith('otel error:')), 'only errors at ERROR');
  const quiet = await child(undefined);
  t.deepEqual(quiet.diag, []);
});

test.serial('OTEL_NODE_RESOURCE_DETECTORS runs the detectors @opentelemetry/resources ships', async (t) => {
  const resourceWith = (value: string | undefined) =>
    withEnv({ OTEL_NODE_RESOURCE_DETECTORS: value }, async () => {
      const { handle, spans } = setupTestTelemetry({ config: { serviceName: 'detected' } });
      managedSpan('job', 'one', () => undefined);
      // Detected attributes may be async (host.id): the processor exports once they settle.
      t.true(await handle.forceFlush(5000));
      await handle.shutdown();
      const resource = spans()[0]!.resource;
      await resource.waitForAsyncAttributes?.();
      return resource.attributes;
    });
  const unset = await resourceWith(undefined);
  t.is(unset['process.runtime.name'], undefined, 'unset: nemo-lens resource only');
  t.is(unset['process.pid'], process.pid);
  const processOnly = await resourceWith('process');
  t.is(processOnly['process.runtime.name'], 'nodejs');
  t.is(processOnly['os.type'], undefined);
  const all = await resourceWith('all');
  t.is(all['process.runtime.name'], 'nodejs');
  t.is(typeof all['os.type'], 'string');
  t.is(typeof all['service.instance.id'], 'string');
  t.is(all['service.name'], 'detected', "nemo-lens's identity stays over what detectors find");
  t.is((await resourceWith('none'))['process.runtime.name'], undefined);
  const warnings = captureWarnings();
  t.is((await resourceWith('aws, os'))['os.type'] !== undefined, true);
  warnings.stop();
  t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_OTEL_ENV_UNSUPPORTED']);
  t.regex(warnings[0]!.message, /aws skipped/);
});

test.serial('OTEL_TRACES_SAMPLER and the span limits apply to nemo-lens spans', async (t) => {
  await withEnv({ OTEL_TRACES_SAMPLER: 'always_off' }, async () => {
    const { handle, spans } = setupTestTelemetry();
    managedSpan('job', 'sampled-out', (span) => t.false(span?.isRecording()));
    await handle.shutdown();
    t.deepEqual(spans(), []);
  });
  await withEnv({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }, async () => {
    const { handle, spans } = setupTestTelemetry();
    for (let i = 0; i < 20; i++) managedSpan('job', 'ratio-zero', () => undefined);
    await handle.shutdown();
    t.deepEqual(spans(), []);
  });
  await withEnv({ OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: '2', OTEL_SPAN_EVENT_COUNT_LIMIT: '1' }, async () => {
    const { handle, spans } = setupTestTelemetry();
    managedSpan('job', 'limited', { attributes: { a: 1, b: 2, c: 3 } }, (span) => {
      span?.addEvent('one');
      span?.addEvent('two');
    });
    await handle.shutdown();
    t.is(Object.keys(spans()[0]!.attributes).length, 2);
    t.is(spans()[0]!.events.length, 1);
  });
});

test.serial('OTEL_BSP_* and limit variables parse as the SDK reads them; bad numbers warn and keep the default', (t) => {
  t.deepEqual(batchLimitsFromEnv({}), { maxQueueSize: 2048, maxExportBatchSize: 512, scheduledDelayMillis: 5000, exportTimeoutMillis: 30000 });
  t.deepEqual(batchLimitsFromEnv({ OTEL_BSP_MAX_QUEUE_SIZE: '100', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '500', OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_BSP_EXPORT_TIMEOUT: '700' }), {
    maxQueueSize: 100,
    maxExportBatchSize: 100,
    scheduledDelayMillis: 50,
    exportTimeoutMillis: 700,
  });
  t.deepEqual(spanLimitsFromEnv({ OTEL_ATTRIBUTE_COUNT_LIMIT: '9', OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '64', OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '8' }), {
    attributeCountLimit: 9,
    attributeValueLengthLimit: 64,
  });
  const warnings = captureWarnings();
  t.is(batchLimitsFromEnv({ OTEL_BSP_MAX_QUEUE_SIZE: 'lots' }).maxQueueSize, 2048);
  warnings.stop();
  t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_OTEL_ENV_UNSUPPORTED']);
});
