import { SpanStatusCode } from '@opentelemetry/api';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import test from 'ava';
import Module from 'node:module';

import { NemoLensConfig, SpanRegistry, managedSpan, onWarning, setupTelemetry, type NemoLensWarning } from '../src/index';
import { GRPC_EXPORTER_PACKAGE, planExporter } from '../src/telemetry/exporters';
import { resetTelemetry } from '../src/testing';
import { startOtlpReceiver, type OtlpReceiver } from './helpers/otlp-receiver';
import type { DecodedSpan } from './helpers/protobuf';

const OTLP_VARIABLES = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TIMEOUT',
];

test.beforeEach(async () => {
  await resetTelemetry();
  SpanRegistry.register('trainer', ['job', 'step', 'optimizer']);
});

/** Set OTLP variables for one test (the exporters read process.env when they are built). */
async function withOtlpEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(OTLP_VARIABLES.map((key) => [key, process.env[key]]));
  for (const key of OTLP_VARIABLES) delete process.env[key];
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

function captureWarnings(): NemoLensWarning[] & { stop(): void } {
  const warnings = [] as unknown as NemoLensWarning[] & { stop(): void };
  warnings.stop = onWarning((warning) => void (warning.code !== 'NEMO_LENS_NO_RANK' && warnings.push(warning)));
  return warnings;
}

const config = new NemoLensConfig({ enabled: true, exporter: 'otlp', spanGroups: 'all', serviceName: 'otlp-test', runId: 'run-otlp' });

/** A small training-shaped trace: job > step > optimizer (failing), emitted through the OTLP exporter. */
async function emitTrace(): Promise<void> {
  const handle = setupTelemetry(config, { resourceAttributes: { rank: 2, worldSize: 4 } });
  managedSpan('job', 'job', { attributes: { 'job.kind': 'train' } }, () =>
    managedSpan('step', 'step', (span) => {
      span?.setAttributes({ 'train.step': 7, 'train.loss': 0.25, 'train.ok': true, 'train.tags': ['a', 'b'] });
      try {
        managedSpan('optimizer', 'optimizer', () => {
          throw new Error('nan in gradients');
        });
      } catch {
        // recorded on the span
      }
    }),
  );
  await handle.shutdown(10_000);
}

function assertTrainingTrace(t: import('ava').ExecutionContext, spans: DecodedSpan[]): void {
  const byName = new Map(spans.map((span) => [span.name, span]));
  t.deepEqual([...byName.keys()].sort(), ['job', 'optimizer', 'step']);
  const job = byName.get('job')!;
  const step = byName.get('step')!;
  const optimizer = byName.get('optimizer')!;
  t.regex(job.traceId, /^[0-9a-f]{32}$/);
  t.regex(job.spanId, /^[0-9a-f]{16}$/);
  t.is(job.parentSpanId, '');
  t.is(step.parentSpanId, job.spanId);
  t.is(optimizer.parentSpanId, step.spanId);
  t.true(spans.every((span) => span.traceId === job.traceId));
  t.deepEqual(job.attributes, { 'job.kind': 'train', 'nemo.span_group': 'job' });
  t.deepEqual(step.attributes, { 'nemo.span_group': 'step', 'train.step': 7, 'train.loss': 0.25, 'train.ok': true, 'train.tags': ['a', 'b'] });
  t.deepEqual(optimizer.status, { code: SpanStatusCode.ERROR, message: 'nan in gradients' });
  t.is(optimizer.events[0]?.name, 'exception');
  t.is(optimizer.events[0]?.attributes['exception.message'], 'nan in gradients');
  t.true(job.endTimeUnixNano >= job.startTimeUnixNano);
  for (const span of spans) {
    t.is(span.scope, 'nemo-lens');
    t.like(span.resource, {
      'service.name': 'otlp-test',
      'nemo.run.id': 'run-otlp',
      'dl.rank': 2,
      'dl.world_size': 4,
      'service.instance.id': 'run-otlp-rank2',
      'telemetry.sdk.language': 'nodejs',
    });
  }
}

const PROTOCOLS: Array<[string, RegExp]> = [
  ['http/protobuf', /application\/x-protobuf/],
  ['http/json', /application\/json/],
];

for (const [protocol, contentType] of PROTOCOLS) {
  test.serial(`OTLP ${protocol} over a real socket, decoded span by span`, async (t) => {
    const receiver = await startOtlpReceiver();
    try {
      await withOtlpEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: protocol }, emitTrace);
      t.true(receiver.requests.length >= 1);
      for (const request of receiver.requests) {
        t.is(request.path, '/v1/traces');
        t.regex(request.contentType, contentType);
      }
      assertTrainingTrace(t, receiver.spans());
    } finally {
      await receiver.close();
    }
  });
}

test.serial('http/protobuf is the default protocol', async (t) => {
  const receiver = await startOtlpReceiver();
  try {
    await withOtlpEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, emitTrace);
    t.regex(receiver.requests[0]?.contentType ?? '', /protobuf/);
    assertTrainingTrace(t, receiver.spans());
  } finally {
    await receiver.close();
  }
});

test.serial('the traces-specific variables win: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL and _TRACES_ENDPOINT; headers are sent', async (t) => {
  const receiver = await startOtlpReceiver();
  try {
    await withOtlpEnv(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', // would fail: the traces endpoint must win
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/custom/traces`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'HTTP/JSON',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=lab%2042',
      },
      emitTrace,
    );
    t.is(receiver.requests[0]?.path, '/custom/traces');
    t.regex(receiver.requests[0]?.contentType ?? '', /json/);
    t.is(receiver.requests[0]?.headers['x-tenant'], 'lab 42');
    assertTrainingTrace(t, receiver.spans());
  } finally {
    await receiver.close();
  }
});

test.serial('a collector that refuses: one warning, shutdown resolves', async (t) => {
  const receiver = await startOtlpReceiver('refuse');
  const warnings = captureWarnings();
  try {
    await withOtlpEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, emitTrace);
    warnings.stop();
    t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_EXPORT_FAILED']);
    t.true(warnings[0]!.message.includes(`OTLP http/protobuf at ${receiver.url}/v1/traces`), warnings[0]!.message);
  } finally {
    warnings.stop();
    await receiver.close();
  }
});

test.serial('a collector that hangs: shutdown returns within its bound', async (t) => {
  const receiver = await startOtlpReceiver('hang');
  const warnings = captureWarnings();
  try {
    // The exporter's own timeout (2 s) is far above the shutdown bound: shutdown must not wait for it.
    await withOtlpEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_TIMEOUT: '2000' }, async () => {
      const handle = setupTelemetry(config);
      managedSpan('job', 'job', () => undefined);
      const started = Date.now();
      await handle.shutdown(300);
      const elapsed = Date.now() - started;
      t.true(elapsed < 1900, `took ${elapsed} ms`);
    });
    warnings.stop();
    t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_SHUTDOWN_TIMEOUT']);
    t.regex(warnings[0]!.message, /OTLP http\/protobuf at http:\/\/127\.0\.0\.1:\d+\/v1\/traces did not answer/);
  } finally {
    warnings.stop();
    await receiver.close();
  }
});

test.serial('nothing listening: the export fails with one warning and shutdown stays bounded', async (t) => {
  const receiver = await startOtlpReceiver();
  const url = receiver.url;
  await receiver.close(); // the port is now closed: connections are refused
  const warnings = captureWarnings();
  await withOtlpEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_EXPORTER_OTLP_TIMEOUT: '500' }, async () => {
    const handle = setupTelemetry(config);
    for (let i = 0; i < 20; i++) managedSpan('step', `step-${i}`, () => undefined);
    const started = Date.now();
    await handle.shutdown(2000);
    t.true(Date.now() - started < 6000);
  });
  warnings.stop();
  t.is(warnings.length, 1);
  t.true(['NEMO_LENS_EXPORT_FAILED', 'NEMO_LENS_SHUTDOWN_TIMEOUT'].includes(warnings[0]!.code));
});

test.serial('grpc without its package: warns NEMO_LENS_EXPORTER_FALLBACK and exports over http/protobuf', (t) => {
  const warnings = captureWarnings();
  const notInstalled = (id: string) => {
    throw Object.assign(new Error(`Cannot find module '${id}'\nRequire stack: ...`), { code: 'MODULE_NOT_FOUND' });
  };
  const plan = planExporter({
    exporter: 'otlp',
    injected: undefined,
    env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' },
    requireOptional: notInstalled,
  });
  warnings.stop();
  t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_EXPORTER_FALLBACK']);
  t.regex(warnings[0]!.message, new RegExp(`${GRPC_EXPORTER_PACKAGE} could not be loaded \\(it is not installed\\); exporting over http/protobuf to http://collector:4318/v1/traces`));
  t.true(plan.build!() instanceof ProtobufExporter);
});

test.serial('grpc with a broken install says why', (t) => {
  const warnings = captureWarnings();
  planExporter({
    exporter: 'otlp',
    injected: undefined,
    env: { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' },
    requireOptional: () => {
      throw Object.assign(new Error("Cannot find module '@grpc/grpc-js'"), { code: 'MODULE_NOT_FOUND' });
    },
  });
  warnings.stop();
  t.regex(warnings[0]!.message, /loading it failed: Cannot find module '@grpc\/grpc-js'/);
});

test.serial('grpc with its package installed uses it, without a warning', (t) => {
  class FakeGrpcExporter {
    export(): void {}
    async shutdown(): Promise<void> {}
  }
  const warnings = captureWarnings();
  const seen: string[] = [];
  const plan = planExporter({
    exporter: 'otlp',
    injected: undefined,
    env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
    requireOptional: (id) => {
      seen.push(id);
      return { OTLPTraceExporter: FakeGrpcExporter };
    },
  });
  warnings.stop();
  t.deepEqual(seen, [GRPC_EXPORTER_PACKAGE]);
  t.is(warnings.length, 0);
  t.true(plan.build!() instanceof FakeGrpcExporter);
  t.is(plan.target.description, 'OTLP grpc at http://localhost:4317');
});

/**
 * The gRPC exporter is installed here (a devDependency through @opentelemetry/sdk-node), so
 * resolving it fails on purpose, as `require` does for a package that is not installed.
 */
function withoutPackage(name: string): () => void {
  const loader = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const original = loader._resolveFilename;
  loader._resolveFilename = function (request: string, ...rest: unknown[]): string {
    if (request === name) throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
    return original.call(this, request, ...rest);
  };
  return () => {
    loader._resolveFilename = original;
  };
}

test.serial('grpc end to end without the package: the fallback reaches an HTTP receiver', async (t) => {
  const receiver: OtlpReceiver = await startOtlpReceiver();
  const warnings = captureWarnings();
  const restore = withoutPackage(GRPC_EXPORTER_PACKAGE);
  try {
    await withOtlpEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, emitTrace);
    warnings.stop();
    t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_EXPORTER_FALLBACK']);
    assertTrainingTrace(t, receiver.spans());
  } finally {
    restore();
    warnings.stop();
    await receiver.close();
  }
});
