/**
 * Every way a job ends flushes, and ends as it would without nemo-lens: a child process
 * (helpers/exit-child.ts) exports to a real OTLP collector in another process
 * (helpers/collector-process.ts), and each ending is compared with the same child run with
 * telemetry disabled: exit code, signal and stderr. Every ended step arrives, and the spans
 * still open (`stuck_step` inside `job`) arrive truncated. (Their order is open-spans.ts's,
 * tested there: end times cannot show it, since the SDK's start times are whole milliseconds.)
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import test, { type ExecutionContext } from 'ava';

import { startCollector, type CollectorProcess, type ReceivedSpan } from './helpers/collector';

const CHILD = path.join(__dirname, 'helpers', 'exit-child.ts');
const STEPS = 600;

interface Ended {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  /** From the signal (or "ready", for endings of the child's own making) to the exit. */
  readonly msToExit: number;
}

function runChild(env: Record<string, string>, signal?: NodeJS.Signals): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import=tsx', CHILD], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let readyAt = 0;
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (readyAt !== 0 || !chunk.includes('ready')) return;
      readyAt = Date.now();
      if (signal !== undefined) child.kill(signal);
    });
    child.on('error', reject);
    child.on('exit', (status, exitSignal) => {
      clearTimeout(guard);
      resolve({ status, signal: exitSignal, stderr, msToExit: readyAt === 0 ? -1 : Date.now() - readyAt });
    });
  });
}

async function withCollector<T>(body: (collector: CollectorProcess) => Promise<T>): Promise<T> {
  const collector = await startCollector('ok');
  try {
    return await body(collector);
  } finally {
    await collector.kill();
  }
}

function assertAllArrived(t: ExecutionContext, spans: ReceivedSpan[]): void {
  const steps = spans.filter((span) => span.name === 'step');
  t.is(steps.length, STEPS, 'every ended step');
  t.is(new Set(steps.map((span) => span.attributes['step.index'])).size, STEPS);
  const job = spans.find((span) => span.name === 'job');
  const stuck = spans.find((span) => span.name === 'stuck_step');
  t.truthy(job, 'the open job span');
  t.truthy(stuck, 'the open stuck_step span');
  t.is(job?.attributes['nemo.span.truncated'], true);
  t.is(stuck?.attributes['nemo.span.truncated'], true);
  t.is(stuck?.parentSpanId, job?.spanId);
}

const ENDINGS: Array<{ title: string; env: Record<string, string>; signal?: NodeJS.Signals }> = [
  { title: 'process.exit(3)', env: { CHILD_ENDING: 'exit' } },
  { title: 'an uncaught exception', env: { CHILD_ENDING: 'throw' } },
  { title: 'an unhandled rejection', env: { CHILD_ENDING: 'reject' } },
  { title: 'SIGTERM', env: { CHILD_ENDING: 'signal' }, signal: 'SIGTERM' },
  { title: 'SIGINT', env: { CHILD_ENDING: 'signal' }, signal: 'SIGINT' },
  { title: 'SIGHUP', env: { CHILD_ENDING: 'signal' }, signal: 'SIGHUP' },
  { title: "SIGTERM handled by the host's own listener (it exits with 7)", env: { CHILD_ENDING: 'host-handler' }, signal: 'SIGTERM' },
  { title: 'a natural end (no shutdown call)', env: { CHILD_ENDING: 'natural' } },
];

for (const { title, env, signal } of ENDINGS) {
  test.serial(`${title}: every span arrives, open ones truncated; exit code, signal and stderr as without nemo-lens`, async (t) => {
    await withCollector(async (collector) => {
      // A budget far above the default (5 s): on a loaded machine the export worker alone can take seconds to start.
      const common = { ...env, CHILD_STEPS: String(STEPS), OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, NEMO_LENS_EXIT_TIMEOUT_MS: '30000' };
      const [withLens, without] = await Promise.all([runChild({ ...common, CHILD_TELEMETRY: 'on' }, signal), runChild({ ...common, CHILD_TELEMETRY: 'off' }, signal)]);
      t.log(`with nemo-lens: status ${withLens.status}, signal ${withLens.signal}, ${withLens.msToExit} ms to exit; without: ${without.msToExit} ms`);
      t.deepEqual({ status: withLens.status, signal: withLens.signal }, { status: without.status, signal: without.signal });
      t.is(withLens.stderr, without.stderr);
      // A generous safety net: the exit flush is bounded by NEMO_LENS_EXIT_TIMEOUT_MS.
      t.true(withLens.msToExit < 30_000, `${withLens.msToExit} ms from the ending to the exit`);
      assertAllArrived(t, await collector.spans());
    });
  });
}

test.serial('NEMO_LENS_EXIT_HOOKS=false: the host keeps its exit to itself (open spans are not flushed)', async (t) => {
  await withCollector(async (collector) => {
    const env = { CHILD_ENDING: 'signal', CHILD_STEPS: String(STEPS), OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, NEMO_LENS_EXIT_HOOKS: 'false' };
    const ended = await runChild({ ...env, CHILD_TELEMETRY: 'on' }, 'SIGTERM');
    t.is(ended.signal, 'SIGTERM');
    const spans = await collector.spans();
    t.false(
      spans.some((span) => span.attributes['nemo.span.truncated'] === true),
      'no hook ended the open spans',
    );
  });
});

test.serial('the exit flush is bounded: against a collector that never answers, process.exit waits NEMO_LENS_EXIT_TIMEOUT_MS at most', async (t) => {
  const collector = await startCollector('hang');
  try {
    const env = { CHILD_ENDING: 'exit', CHILD_STEPS: String(STEPS), OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, NEMO_LENS_EXIT_TIMEOUT_MS: '1000' };
    const ended = await runChild({ ...env, CHILD_TELEMETRY: 'on' });
    t.log(`${ended.msToExit} ms from process.exit to the exit`);
    t.is(ended.status, 3);
    // The wait stops at the budget; the rest is a safety net for a loaded machine.
    t.true(ended.msToExit < 1000 + 2000, `${ended.msToExit} ms`);
  } finally {
    await collector.kill();
  }
});
