/**
 * Hangs you can see: a child (helpers/hang-child.ts) ends 30 steps and then hangs in
 * `hung_step`, asynchronously (awaiting forever) or synchronously (a busy loop on the main
 * thread). Against a real collector process, while it hangs: the steps ended before the hang
 * arrive, and `hung_step` and `job` arrive as in-progress snapshots (NEMO_LENS_IN_PROGRESS_AFTER_MS
 * is 1 s here). After SIGTERM the final spans arrive, truncated where still open, with the
 * real span ids the snapshots point to, and the child dies of SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import * as path from 'node:path';
import test, { type ExecutionContext } from 'ava';

import { startCollector, type CollectorProcess, type ReceivedSpan } from './helpers/collector';

const CHILD = path.join(__dirname, 'helpers', 'hang-child.ts');
const THRESHOLD_MS = 1000;
const BUSY_MS = 12_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function startChild(hang: 'async' | 'sync', collector: CollectorProcess): { child: ChildProcess; hanging: Promise<number>; exited: Promise<[number | null, NodeJS.Signals | null]> } {
  const child = spawn(process.execPath, ['--import=tsx', CHILD], {
    env: { ...process.env, CHILD_HANG: hang, CHILD_BUSY_MS: String(BUSY_MS), OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, NEMO_LENS_IN_PROGRESS_AFTER_MS: String(THRESHOLD_MS) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const hanging = new Promise<number>((resolve) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      if (chunk.includes('hanging')) resolve(Date.now());
    });
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, hanging, exited };
}

const snapshotsOf = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === `${name} (in progress)`);

async function until(collector: CollectorProcess, condition: (spans: ReceivedSpan[]) => boolean, ms: number): Promise<ReceivedSpan[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const spans = await collector.spans();
    if (condition(spans) || Date.now() > deadline) return spans;
    await sleep(200);
  }
}

function assertSnapshot(t: ExecutionContext, snapshot: ReceivedSpan | undefined, final: ReceivedSpan | undefined): void {
  t.truthy(snapshot);
  t.truthy(final);
  t.is(snapshot!.attributes['nemo.span.in_progress'], true);
  t.is(snapshot!.attributes['nemo.span.in_progress.span_id'], final!.spanId, 'the snapshot names the real span');
  t.not(snapshot!.spanId, final!.spanId, 'a span id of its own');
  t.is(snapshot!.traceId, final!.traceId);
  t.is(snapshot!.parentSpanId, final!.parentSpanId, 'the same parent');
  t.is(snapshot!.startTimeUnixNano, final!.startTimeUnixNano);
  t.true(BigInt(snapshot!.endTimeUnixNano) > BigInt(snapshot!.startTimeUnixNano));
  t.is(final!.attributes['nemo.span.in_progress'], undefined, 'the final span is not marked');
}

for (const hang of ['async', 'sync'] as const) {
  test.serial(`${hang} hang: ended steps and in-progress snapshots arrive during the hang, final spans after SIGTERM`, async (t) => {
    const collector = await startCollector('ok');
    const { child, hanging, exited } = startChild(hang, collector);
    try {
      const hangStarted = await hanging;
      const during = await until(
        collector,
        (spans) => spans.filter((span) => span.name === 'step').length === 30 && snapshotsOf(spans, 'hung_step').length > 0 && snapshotsOf(spans, 'job').length > 0,
        15_000,
      );
      const elapsed = Date.now() - hangStarted;
      t.log(`${hang}: steps and snapshots arrived ${elapsed} ms into the hang`);
      t.is(during.filter((span) => span.name === 'step').length, 30, 'the steps ended before the hang');
      t.true(snapshotsOf(during, 'hung_step').length > 0 && snapshotsOf(during, 'job').length > 0, 'in-progress snapshots of hung_step and job');
      t.is(child.exitCode, null, 'still hanging');
      if (hang === 'sync') t.true(elapsed < BUSY_MS, 'while the main thread was still in its busy loop');
      // Refreshed at most once per threshold.
      t.true(snapshotsOf(during, 'job').length <= Math.ceil((elapsed + 2000) / THRESHOLD_MS) + 1);

      const signalled = Date.now();
      child.kill('SIGTERM');
      const [status, signal] = await exited;
      // In a synchronous hang the signal is handled when the busy loop returns (see README, Reliability).
      t.log(`${hang}: ${Date.now() - signalled} ms from SIGTERM to exit`);
      t.deepEqual({ status, signal }, { status: null, signal: 'SIGTERM' });
      const spans = await until(collector, (all) => all.some((span) => span.name === 'job'), 5000);
      const job = spans.find((span) => span.name === 'job');
      const hung = spans.find((span) => span.name === 'hung_step');
      assertSnapshot(t, snapshotsOf(spans, 'job')[0], job);
      assertSnapshot(t, snapshotsOf(spans, 'hung_step')[0], hung);
      t.is(job?.attributes['nemo.span.truncated'], true);
      // After its busy loop, the synchronous hung_step awaits forever too: both are still open at the signal.
      t.is(hung?.attributes['nemo.span.truncated'], true);
    } finally {
      child.kill('SIGKILL');
      await collector.kill();
    }
  });
}
