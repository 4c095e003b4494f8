/**
 * setupTelemetry / shutdown cycles in one process, for telemetry-exit-cycles.spec.ts: OS
 * threads (/proc/self/task) and process listeners after the first cycle (which may start
 * libuv's thread pool), after CYCLES more (half replaced by the next with allowReinit, half shut down),
 * and listener counts while a setup is active. Prints one JSON line, then "done" after the
 * last shutdown resolved; the parent times the exit from there.
 */
import { readdirSync } from 'node:fs';
import { SpanRegistry, managedSpan, setupTelemetry } from '../../src/index';

const CYCLES = Number(process.env['CYCLES'] ?? 10);
const EVENTS = ['exit', 'beforeExit', 'SIGTERM', 'SIGINT', 'SIGHUP', 'SIGUSR1', 'SIGUSR2'] as const;
const threads = () => readdirSync('/proc/self/task').length;
const listeners = () => Object.fromEntries(EVENTS.map((event) => [event, process.listenerCount(event)]));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
SpanRegistry.register('job', ['step']);

/** Worker threads end asynchronously after terminate(): wait (bounded) until the count settles. */
async function settledThreads(target: number): Promise<number> {
  const deadline = Date.now() + 5000;
  while (threads() > target && Date.now() < deadline) await sleep(50);
  return threads();
}

/** A setup (replacing an active one, if any) and its spans; shut down unless the next cycle replaces it. */
async function cycle(shutDown: boolean): Promise<void> {
  const handle = setupTelemetry({ enabled: true, exporter: 'otlp', spanGroups: 'all' }, { allowReinit: true });
  for (let i = 0; i < 50; i++) managedSpan('step', 'step', () => undefined);
  await sleep(20);
  if (shutDown) await handle.shutdown(10_000);
}

async function main(): Promise<void> {
  // After the entry module has finished loading (Node's own 'exit' listener for a pending top-level await is gone).
  await sleep(50);
  const before = listeners();
  await cycle(true);
  await sleep(200);
  const baseline = threads();
  const during: Array<Record<string, number>> = [];
  for (let i = 0; i < CYCLES; i++) {
    // Even cycles are left active, for the next one to replace (allowReinit).
    await cycle(i % 2 === 1);
    during.push(listeners());
  }
  const last = setupTelemetry({ enabled: true, exporter: 'otlp', spanGroups: 'all' }, { allowReinit: true });
  const active = listeners();
  await last.shutdown(10_000);
  const after = await settledThreads(baseline);
  process.stdout.write(`${JSON.stringify({ baseline, after, before, active, during, final: listeners() })}\n`);
  process.stdout.write('done\n');
}

void main();
