/** Starts and steers helpers/collector-process.ts: an OTLP collector in a process of its own. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import * as path from 'node:path';
import * as readline from 'node:readline';

import type { CollectorMode } from './collector-process';
import type { DecodedSpan } from './protobuf';

export type { CollectorMode };

export type ReceivedSpan = Omit<DecodedSpan, 'startTimeUnixNano' | 'endTimeUnixNano'> & { startTimeUnixNano: string; endTimeUnixNano: string };

export interface CollectorProcess {
  /** `http://127.0.0.1:<port>` (exporters append /v1/traces). */
  readonly url: string;
  readonly pid: number;
  setMode(mode: CollectorMode, delayMs?: number): Promise<void>;
  /** `spans` counts every span sent, `accepted` those in requests answered with 200. */
  stats(): Promise<{ requests: number; spans: number; accepted: number }>;
  /** Every span answered with 200 so far, decoded; times are decimal strings of nanoseconds. */
  spans(): Promise<ReceivedSpan[]>;
  /** SIGKILL, and wait until it is gone: from then on, connections to `url` are refused. */
  kill(): Promise<void>;
}

export async function startCollector(mode: CollectorMode, delayMs = 0): Promise<CollectorProcess> {
  const entry = path.join(__dirname, 'collector-process.ts');
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import=tsx', entry, mode, String(delayMs)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const waiting: Array<(line: Record<string, unknown>) => void> = [];
  readline.createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.(JSON.parse(line) as Record<string, unknown>));
  const next = () => new Promise<Record<string, unknown>>((resolve) => waiting.push(resolve));
  const exited = once(child, 'exit');
  const { port } = (await Promise.race([next(), exited.then(() => Promise.reject(new Error('the collector process exited before listening')))])) as {
    port: number;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    async setMode(newMode, newDelay = 0) {
      const answer = next();
      child.stdin.write(`mode ${newMode} ${newDelay}\n`);
      await answer;
    },
    async stats() {
      const answer = next();
      child.stdin.write('stats\n');
      return (await answer) as { requests: number; spans: number; accepted: number };
    },
    async spans() {
      const answer = next();
      child.stdin.write('spans\n');
      return ((await answer) as { spans: ReceivedSpan[] }).spans;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
