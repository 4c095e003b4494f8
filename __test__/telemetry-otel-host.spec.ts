/**
 * Beside a host's own NodeSDK (@opentelemetry/sdk-node), in both orders: every span of a trace
 * ends in one pipeline, and nemo-lens says so whenever it is not the one the host expects.
 * Each order runs in its own process (an SDK registers process-wide globals).
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..');
const SCENARIO = path.join(__dirname, 'helpers', 'host-sdk-scenario.ts');

interface Exported {
  name: string;
  scope: string;
  traceId: string;
  service: string;
}
interface Outcome {
  pipeline: string;
  flushed: boolean;
  host: Exported[];
  nemo: Exported[];
  warnings: string[];
}

async function scenario(order: string): Promise<Outcome> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('OTEL_') && key !== 'TRACEPARENT'));
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--no-warnings', SCENARIO], {
    cwd: ROOT,
    env: { ...env, ORDER: order },
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Outcome;
}

const names = (spans: Exported[]) => spans.map((span) => span.name).sort();
const ALL = ['host-db', 'host-request', 'nemo-work'];

function onePipeline(t: import('ava').ExecutionContext, spans: Exported[], service: string): void {
  t.deepEqual(names(spans), ALL, 'the whole trace, host spans and nemo-lens spans');
  t.is(new Set(spans.map((span) => span.traceId)).size, 1, 'one trace');
  t.deepEqual([...new Set(spans.map((span) => span.service))], [service], 'under one resource');
}

test('host SDK first: nemo-lens spans go through the host pipeline, and nemo-lens says so', async (t) => {
  const outcome = await scenario('host-first');
  onePipeline(t, outcome.host, 'host-service');
  t.deepEqual(outcome.nemo, [], "nemo-lens's own exporter gets nothing");
  t.is(outcome.pipeline, 'host');
  t.true(outcome.flushed, 'forceFlush flushed the host pipeline');
  t.deepEqual(outcome.warnings, ['NEMO_LENS_HOST_SDK_PRESENT']);
});

test('nemo-lens first: the host spans are exported by nemo-lens, and it says so once', async (t) => {
  const outcome = await scenario('nemo-first');
  onePipeline(t, outcome.nemo, 'nemo-service');
  t.deepEqual(outcome.host, [], 'the host SDK could not register; its exporter gets nothing');
  t.is(outcome.pipeline, 'nemo-lens');
  t.deepEqual(outcome.warnings, ['NEMO_LENS_FOREIGN_SPANS'], 'two host spans, one warning');
});

test("nemo-lens first with foreignSpans: 'export': the same pipeline, chosen, so no warning", async (t) => {
  const outcome = await scenario('nemo-first-export');
  onePipeline(t, outcome.nemo, 'nemo-service');
  t.deepEqual(outcome.warnings, []);
});

test('gated (tracesEnabled: false): spans flow to the host, pipeline says "host", isExporting is true', async (t) => {
  const outcome = await scenario('gated');
  onePipeline(t, outcome.host, 'host-service');
  t.deepEqual(outcome.nemo, []);
  t.is(outcome.pipeline, 'host');
  t.deepEqual(outcome.warnings, [], 'the explicit choice needs no warning');
});
