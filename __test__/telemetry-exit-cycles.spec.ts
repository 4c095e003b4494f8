/**
 * No leaks across setup/shutdown cycles (allowReinit included): the export worker thread
 * of each setup ends, the exit hooks are one set of process listeners (taken with the
 * first setup, given back with the last), SIGUSR1 and SIGUSR2 are never taken, and the
 * process exits promptly once shutdown() has resolved. Spans go to a real collector process.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import test from 'ava';

import { startCollector } from './helpers/collector';

const CHILD = path.join(__dirname, 'helpers', 'cycles-child.ts');

interface Report {
  baseline: number;
  after: number;
  before: Record<string, number>;
  active: Record<string, number>;
  during: Array<Record<string, number>>;
  final: Record<string, number>;
}

test.serial('setup/shutdown and allowReinit cycles leave no thread and no listener; the process exits promptly after shutdown', async (t) => {
  const collector = await startCollector('ok');
  try {
    const child = spawn(process.execPath, ['--import=tsx', CHILD], {
      env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, CYCLES: '10' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    let doneAt = 0;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (doneAt === 0 && stdout.includes('done')) doneAt = Date.now();
    });
    const status = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const exitMs = Date.now() - doneAt;
    const report = JSON.parse(stdout.split('\n')[0]!) as Report;
    t.log(`threads: ${report.baseline} after the first cycle, ${report.after} after 10 more; exit ${exitMs} ms after the last shutdown resolved`);
    t.is(status, 0);
    t.is(report.after, report.baseline, 'no thread left behind');
    for (const listeners of [...report.during, report.final]) {
      for (const event of ['SIGTERM', 'SIGINT', 'SIGHUP', 'exit', 'SIGUSR1', 'SIGUSR2'] as const) {
        t.true(listeners[event]! <= report.before[event]! + 1, `${event}: ${listeners[event]} listeners`);
      }
    }
    for (const event of ['SIGTERM', 'SIGINT', 'SIGHUP', 'exit'] as const) t.is(report.active[event], report.before[event]! + 1, `one ${event} listener while active`);
    t.deepEqual(
      { SIGUSR1: report.active['SIGUSR1'], SIGUSR2: report.active['SIGUSR2'] },
      { SIGUSR1: report.before['SIGUSR1'], SIGUSR2: report.before['SIGUSR2'] },
      'SIGUSR1 and SIGUSR2 are never taken',
    );
    t.deepEqual(report.final, report.before, 'every listener given back');
    // A generous safety net: nothing of nemo-lens keeps the loop alive after shutdown.
    t.true(exitMs < 2000, `exited ${exitMs} ms after shutdown resolved`);
  } finally {
    await collector.kill();
  }
});

test.serial("a preload that sets telemetry up runs once: the export worker does not get the host's --import flags", async (t) => {
  const collector = await startCollector('ok');
  try {
    const preload = path.join(__dirname, 'helpers', 'preload-setup.ts');
    const child = spawn(process.execPath, ['--import=tsx', `--import=${preload}`, '-e', 'setTimeout(() => undefined, 300)'], {
      env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const status = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    t.is(status, 0);
    t.deepEqual(stderr.match(/preload ran in thread \d+/g), ['preload ran in thread 0'], stderr);
    const spans = await collector.spans();
    t.deepEqual(spans.map((span) => span.name), ['after-preload'], 'the preload\'s setup exports');
  } finally {
    await collector.kill();
  }
});
