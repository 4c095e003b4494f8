/**
 * Starting the export worker thread.
 *
 * - The entry is worker.js beside this file in dist/. Run from the TypeScript sources (this
 *   repository's tests, under tsx), the entry is worker.ts, which a Worker can only load with
 *   tsx registered inside it, hence the small eval entry.
 * - Preload guard (as pino's transport does): the host's `--import`/`--require`/`--loader`
 *   flags are not passed on. An OpenTelemetry setup is usually such a preload, and running
 *   it again inside the worker would start another setup there (setup.ts also stays dark in
 *   a realm whose workerData carries EXPORT_WORKER_MARKER). Other flags are kept.
 * - The caller unrefs the worker once its listeners are on (a 'message' listener added after
 *   `unref()` refs the port again, checked on Node 20): the worker never keeps the host
 *   alive; shutdown refs it while it drains.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { WorkerInit } from './protocol';

const PRELOAD_FLAGS = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader']);

/** `execArgv` without preload flags (both `--flag value` and `--flag=value`). */
export function withoutPreloads(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    if (PRELOAD_FLAGS.has(arg)) {
      i++;
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq > 0 && PRELOAD_FLAGS.has(arg.slice(0, eq))) continue;
    kept.push(arg);
  }
  return kept;
}

/** Where the worker's entry is, or undefined when it is missing (a bundle that left it out). */
export function workerEntry(): { file: string; typescript: boolean } | undefined {
  const js = path.join(__dirname, 'worker.js');
  if (existsSync(js)) return { file: js, typescript: false };
  const ts = path.join(__dirname, 'worker.ts');
  if (__filename.endsWith('.ts') && existsSync(ts)) return { file: ts, typescript: true };
  return undefined;
}

export function spawnExportWorker(entry: { file: string; typescript: boolean }, init: WorkerInit): Worker {
  const options = { workerData: init, execArgv: withoutPreloads(process.execArgv), stdout: false, stderr: false };
  const worker = entry.typescript
    ? // tsx is resolved inside the eval'd source, from the entry's folder: a literal require.resolve
      // here would send bundlers (webpack) looking for tsx, a dev-only tool, in every bundle.
      new Worker(
        `const load = require('node:module').createRequire(${JSON.stringify(entry.file)}); load(load.resolve('tsx/cjs/api')).register(); load(${JSON.stringify(entry.file)});`,
        { ...options, eval: true },
      )
    : new Worker(entry.file, options);
  return worker;
}
