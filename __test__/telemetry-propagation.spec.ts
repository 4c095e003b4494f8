import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';

import { ROOT_CONTEXT, TraceFlags, context, createTraceState, propagation, trace, type SpanContext } from '@opentelemetry/api';
import test from 'ava';

import {
  SpanRegistry,
  contextFromEnv,
  envWithTraceContext,
  extractContext,
  injectContext,
  managedSpan,
  setupTelemetry,
} from '../src/index';
import type { ConsoleSpanRecord } from '../src/telemetry/console-exporter';
import { resetTelemetry, setupTestTelemetry } from '../src/testing';
import { RecordingExporter } from './helpers/exporters';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..');
const CHILD = path.join(__dirname, 'helpers', 'child-trace.ts');

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';
const REMOTE: SpanContext = { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED, traceState: createTraceState('vendor=abc') };
const TRACEPARENT = `00-${TRACE_ID}-${SPAN_ID}-01`;

test.beforeEach(async () => {
  await resetTelemetry();
  SpanRegistry.register('trainer', ['job', 'step']);
});

const remote = () => trace.setSpanContext(ROOT_CONTEXT, REMOTE);

test.serial('injectContext writes traceparent/tracestate, or both spellings for an env carrier (OpenTelemetry tooling and a Python child)', (t) => {
  t.deepEqual(injectContext({}, { context: remote() }), { traceparent: TRACEPARENT, tracestate: 'vendor=abc' });
  t.deepEqual(injectContext({ PATH: '/bin' }, { context: remote(), format: 'env' }), {
    PATH: '/bin',
    TRACEPARENT: TRACEPARENT,
    TRACESTATE: 'vendor=abc',
    traceparent: TRACEPARENT,
    tracestate: 'vendor=abc',
  });
  const carrier = { existing: 'kept' };
  t.is(injectContext(carrier, { context: remote() }), carrier, 'the carrier itself is returned');
});

test.serial('injectContext with no span removes stale keys instead of passing them on', (t) => {
  t.deepEqual(injectContext(), {});
  t.deepEqual(injectContext({ TRACEPARENT: 'stale', TRACESTATE: 'stale', HOME: '/h' }, { format: 'env' }), { HOME: '/h' });
});

test.serial('injectContext works with no setup at all (no global propagator registered)', (t) => {
  const viaGlobal: Record<string, string> = {};
  propagation.inject(remote(), viaGlobal);
  t.deepEqual(viaGlobal, {}, 'the global API propagates nothing before a setup');
  t.is(injectContext({}, { context: remote() }).traceparent, TRACEPARENT);
  t.throws(() => injectContext('x' as never), { message: /injectContext\(carrier\) needs a carrier object/ });
  t.throws(() => injectContext({}, { format: 'ENV' as never }), { message: /must be "headers" or "env", got "ENV"/ });
});

test.serial('injectContext defaults to the active context', (t) => {
  setupTestTelemetry(); // registers the context manager that makes context.with effective
  context.with(remote(), () => {
    t.is(injectContext().traceparent, TRACEPARENT);
  });
});

test.serial('extractContext reads headers in any key case; invalid values give no parent', (t) => {
  for (const carrier of [{ traceparent: TRACEPARENT }, { Traceparent: TRACEPARENT }, { TRACEPARENT }, { traceparent: [TRACEPARENT] }]) {
    const extracted = trace.getSpanContext(extractContext(carrier));
    t.is(extracted?.traceId, TRACE_ID);
    t.is(extracted?.spanId, SPAN_ID);
    t.true(extracted?.isRemote);
  }
  t.is(trace.getSpanContext(extractContext({ traceparent: '00-zz-yy-01' })), undefined);
  t.is(trace.getSpanContext(extractContext({ traceparent: `00-${'0'.repeat(32)}-${SPAN_ID}-01` })), undefined);
  t.is(extractContext({ traceparent: TRACEPARENT, tracestate: 'vendor=abc' }).getValue(Symbol.for('x')), undefined);
  t.is(trace.getSpanContext(extractContext({ traceparent: TRACEPARENT, tracestate: 'vendor=abc' }))?.traceState?.get('vendor'), 'abc');
});

test.serial('contextFromEnv / envWithTraceContext round-trip, without touching process.env', (t) => {
  const env = envWithTraceContext({ HOME: '/h' }, { context: remote() });
  t.deepEqual(env, { HOME: '/h', TRACEPARENT: TRACEPARENT, TRACESTATE: 'vendor=abc', traceparent: TRACEPARENT, tracestate: 'vendor=abc' });
  t.is(trace.getSpanContext(contextFromEnv(env))?.spanId, SPAN_ID);
  t.is(contextFromEnv({}), ROOT_CONTEXT);
  t.is(contextFromEnv({ TRACEPARENT: '  ' }), ROOT_CONTEXT);
  t.is(process.env['TRACEPARENT'], undefined);
  const copy = envWithTraceContext();
  t.not(copy, process.env);
  t.is(copy['PATH'], process.env['PATH']);
});

test.serial('a span round-trips: inject in one context, extract, and the child span has the right parent', (t) => {
  const { spans } = setupTestTelemetry({ spanGroups: 'all' });
  const headers = managedSpan('job', 'sender', () => injectContext());
  context.with(extractContext(headers), () => managedSpan('step', 'receiver', () => undefined));
  const [sender, receiver] = [spans().find((s) => s.name === 'sender')!, spans().find((s) => s.name === 'receiver')!];
  t.is(receiver.spanContext().traceId, sender.spanContext().traceId);
  t.is(receiver.parentSpanContext?.spanId, sender.spanContext().spanId);
});

test.serial('an enabled setup continues TRACEPARENT from the environment (unless told not to)', async (t) => {
  const saved = process.env['TRACEPARENT'];
  process.env['TRACEPARENT'] = TRACEPARENT;
  try {
    const exporter = new RecordingExporter();
    const handle = setupTelemetry({ enabled: true, spanGroups: 'all' }, { spanExporter: exporter });
    managedSpan('job', 'continued', () => managedSpan('step', 'nested', () => undefined));
    await handle.shutdown();
    const [nested, continued] = exporter.spans;
    t.is(continued!.spanContext().traceId, TRACE_ID);
    t.is(continued!.parentSpanContext?.spanId, SPAN_ID);
    t.is(nested!.parentSpanContext?.spanId, continued!.spanContext().spanId);

    const fresh = new RecordingExporter();
    const off = setupTelemetry({ enabled: true, spanGroups: 'all' }, { spanExporter: fresh, continueTraceFromEnv: false });
    managedSpan('job', 'new-trace', () => undefined);
    await off.shutdown();
    t.not(fresh.spans[0]!.spanContext().traceId, TRACE_ID);
    t.is(fresh.spans[0]!.parentSpanContext, undefined);
  } finally {
    if (saved === undefined) delete process.env['TRACEPARENT'];
    else process.env['TRACEPARENT'] = saved;
  }
});

async function runChild(mode: string, env: NodeJS.ProcessEnv): Promise<{ records: ConsoleSpanRecord[]; stderr: string; ms: number }> {
  const started = Date.now();
  const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', '--no-warnings', CHILD], {
    cwd: ROOT,
    env: { ...env, CHILD_MODE: mode },
    timeout: 30_000,
  });
  const records = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as ConsoleSpanRecord);
  return { records, stderr, ms: Date.now() - started };
}

function assertContinues(t: import('ava').ExecutionContext, records: ConsoleSpanRecord[], traceId: string, parentSpanId: string): void {
  const root = records.find((record) => record.name === 'child-root');
  const leaf = records.find((record) => record.name === 'child-leaf');
  t.truthy(root, JSON.stringify(records));
  t.is(root?.traceId, traceId);
  t.is(root?.parentSpanId, parentSpanId);
  t.is(leaf?.traceId, traceId);
  t.is(leaf?.parentSpanId, root?.spanId);
  t.is(root?.service, 'child');
}

test.serial('a child process continues its parent\'s trace through TRACEPARENT', async (t) => {
  const { spans } = setupTestTelemetry({ spanGroups: 'all' });
  let env: NodeJS.ProcessEnv = {};
  let parent: SpanContext | undefined;
  await managedSpan('job', 'parent', async (span) => {
    parent = span?.spanContext();
    env = envWithTraceContext();
  });
  t.is(spans()[0]?.name, 'parent');
  const { records } = await runChild('auto', env);
  assertContinues(t, records, parent!.traceId, parent!.spanId);
});

test.serial('a child can also continue explicitly with context.with(contextFromEnv(), ...)', async (t) => {
  const { records } = await runChild('explicit', envWithTraceContext(process.env, { context: remote() }));
  assertContinues(t, records, TRACE_ID, SPAN_ID);
});

test.serial('a child that never calls shutdown still exports on the way out (beforeExit)', async (t) => {
  const { records } = await runChild('no-shutdown', envWithTraceContext(process.env, { context: remote() }));
  assertContinues(t, records, TRACE_ID, SPAN_ID);
});

test.serial('a child whose exporter hangs ends promptly after shutdown(100)', async (t) => {
  const { stderr, ms, records } = await runChild('hang', envWithTraceContext());
  t.regex(stderr, /shutdown returned/);
  t.deepEqual(records, []);
  // Generous: process start-up with tsx dominates; the point is not waiting for the SDK's 30 s export timeout.
  t.true(ms < 15_000, `took ${ms} ms`);
});
