import { PassThrough } from 'node:stream';

import test from 'ava';

import { SpanRegistry, managedSpan, setupTelemetry } from '../src/index';
import { ConsoleJsonSpanExporter, type ConsoleSpanRecord } from '../src/telemetry/console-exporter';
import { resetTelemetry } from '../src/testing';

test.beforeEach(async () => {
  await resetTelemetry();
  SpanRegistry.register('trainer', ['job', 'step']);
});

function capture(): { stream: PassThrough; writes: string[] } {
  const stream = new PassThrough();
  const writes: string[] = [];
  stream.on('data', (chunk: Buffer) => writes.push(chunk.toString('utf8')));
  return { stream, writes };
}

test.serial('console lines: one JSON object per span, stable fields', async (t) => {
  const { stream, writes } = capture();
  const handle = setupTelemetry(
    { enabled: true, spanGroups: 'all', serviceName: 'console-test' },
    { spanExporter: new ConsoleJsonSpanExporter(stream) },
  );
  managedSpan('job', 'job', { attributes: { 'job.kind': 'train' } }, () => {
    try {
      managedSpan('step', 'step', (span) => {
        span?.setAttribute('train.step', 1);
        throw new Error('loss is nan');
      });
    } catch {
      // recorded
    }
  });
  handle.tracer.startSpan('ungrouped').end();
  await handle.shutdown();

  const text = writes.join('');
  t.true(text.endsWith('\n'));
  const lines = text.trimEnd().split('\n');
  t.is(lines.length, 3);
  const records = lines.map((line) => JSON.parse(line) as ConsoleSpanRecord);
  const [step, job, ungrouped] = records as [ConsoleSpanRecord, ConsoleSpanRecord, ConsoleSpanRecord];

  t.deepEqual(Object.keys(job), ['name', 'traceId', 'spanId', 'parentSpanId', 'group', 'start', 'end', 'durationMs', 'status', 'attributes', 'service']);
  t.like(job, { name: 'job', parentSpanId: null, group: 'job', status: 'UNSET', service: 'console-test' });
  t.deepEqual(job.attributes, { 'job.kind': 'train', 'nemo.span_group': 'job' });
  t.regex(job.traceId, /^[0-9a-f]{32}$/);
  t.regex(job.spanId, /^[0-9a-f]{16}$/);
  t.regex(job.start, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.true(Date.parse(job.end) >= Date.parse(job.start));
  t.true(job.durationMs >= 0 && job.durationMs < 60_000);

  t.like(step, { name: 'step', traceId: job.traceId, parentSpanId: job.spanId, group: 'step', status: 'ERROR', statusMessage: 'loss is nan' });
  t.is(step.attributes['train.step'], 1);
  t.is(step.events?.[0]?.name, 'exception');
  t.is(step.events?.[0]?.attributes['exception.message'], 'loss is nan');

  t.like(ungrouped, { name: 'ungrouped', group: null });
  t.is(ungrouped.events, undefined, 'no events key when there are none');
});

test.serial('console exporter after shutdown reports a failed export instead of writing', async (t) => {
  const { stream, writes } = capture();
  const exporter = new ConsoleJsonSpanExporter(stream);
  await exporter.shutdown();
  const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export([], resolve));
  t.is(result.code, 1);
  t.regex(result.error?.message ?? '', /shut down/);
  t.deepEqual(writes, []);
});
