/**
 * Every way a process ends flushes telemetry, and ends exactly as it would without nemo-lens.
 *
 * What Node does (doc/api/process.md, checked on Node 20):
 *   - `process.exit()`, an uncaught exception and an unhandled rejection (the default
 *     `--unhandled-rejections=throw`) all emit `'exit'`, after the stack is printed, and
 *     skip `'beforeExit'`. `'exit'` listeners must be synchronous: the flush waits for the
 *     export worker with `Atomics.wait` (export-worker/processor.ts), bounded.
 *   - SIGTERM, SIGINT and SIGHUP kill the process without `'exit'` unless a listener
 *     exists, and a listener removes that default. So nemo-lens listens to these three
 *     (never SIGUSR1, the inspector's, nor SIGUSR2, `--report-on-signal`'s and nodemon's),
 *     and on arrival looks at who else listens (tapjs/signal-exit's test):
 *       - nobody: flush, remove its own listeners, and re-raise the signal, so the parent
 *         (a shell, Slurm, Kubernetes) sees the process killed by that signal, as before;
 *       - the host: do nothing; the host decides, and when it exits, `'exit'` flushes.
 *   - Signals reach only the main thread; in a worker thread only `'exit'` is hooked.
 * Listeners never keep a process alive (nodejs/node#28502), so a natural end is unchanged;
 * it still flushes through `'beforeExit'` and the asynchronous shutdown (setup.ts).
 *
 * One set of process listeners serves every registered setup (as on-exit-leak-free does),
 * installed with the first and removed with the last, so setup/shutdown cycles leave none.
 * On by default for an enabled setup; off with `NEMO_LENS_EXIT_HOOKS=false` or the setup
 * option `exitHooks: false`, for hosts that manage their own exit.
 */
import { isMainThread } from 'node:worker_threads';
import { NemoLensError } from '../errors';

export const EXIT_SIGNALS: readonly NodeJS.Signals[] = process.platform === 'win32' ? ['SIGINT'] : ['SIGTERM', 'SIGINT', 'SIGHUP'];
export const DEFAULT_EXIT_TIMEOUT_MS = 5000;

/** A synchronous flush, called at most once per registration. */
export type ExitFlush = (reason: string) => void;

const flushes = new Set<ExitFlush>();
let installed = false;

function runAll(reason: string): void {
  const pending = [...flushes];
  flushes.clear();
  uninstall();
  for (const flush of pending) {
    try {
      flush(reason);
    } catch {
      // Telemetry never changes how the process ends.
    }
  }
}

function onExit(code: number): void {
  runAll(`exit (code ${code})`);
}

function onSignal(signal: NodeJS.Signals): void {
  // Someone else listens: the host owns this signal. It exits (then 'exit' flushes) or not.
  if (process.listenerCount(signal) > 1) return;
  runAll(signal);
  // Our listeners are gone, so the default action applies: the process dies of `signal`.
  process.kill(process.pid, signal);
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', onExit);
  if (isMainThread) for (const signal of EXIT_SIGNALS) process.on(signal, onSignal);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off('exit', onExit);
  if (isMainThread) for (const signal of EXIT_SIGNALS) process.off(signal, onSignal);
}

/** Flush with `flush` when the process ends; returns the unregister function. */
export function registerExitFlush(flush: ExitFlush): () => void {
  flushes.add(flush);
  install();
  return () => {
    flushes.delete(flush);
    if (flushes.size === 0) uninstall();
  };
}

type Env = Readonly<Record<string, string | undefined>>;

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);

/** The exit-hook settings from the setup options, else `NEMO_LENS_EXIT_HOOKS` / `NEMO_LENS_EXIT_TIMEOUT_MS`. */
export function exitHookSettings(option: boolean | undefined, timeoutOption: number | undefined, env: Env = process.env): { enabled: boolean; timeoutMs: number } {
  let enabled = option;
  if (enabled === undefined) {
    const raw = env['NEMO_LENS_EXIT_HOOKS']?.trim().toLowerCase();
    if (raw === undefined || raw === '') enabled = true;
    else if (TRUE_WORDS.has(raw)) enabled = true;
    else if (FALSE_WORDS.has(raw)) enabled = false;
    else throw invalid(`NEMO_LENS_EXIT_HOOKS=${JSON.stringify(env['NEMO_LENS_EXIT_HOOKS'])} is not a boolean; use 1/0, true/false, yes/no or on/off.`);
  }
  let timeoutMs = timeoutOption;
  if (timeoutMs === undefined) {
    const raw = env['NEMO_LENS_EXIT_TIMEOUT_MS']?.trim();
    if (raw === undefined || raw === '') timeoutMs = DEFAULT_EXIT_TIMEOUT_MS;
    else if (/^\d+$/.test(raw)) timeoutMs = Number(raw);
    else throw invalid(`NEMO_LENS_EXIT_TIMEOUT_MS=${JSON.stringify(raw)} is not a whole number of milliseconds; use e.g. 3000.`);
  }
  return { enabled, timeoutMs };
}

function invalid(message: string): NemoLensError {
  return new NemoLensError('ERR_NEMO_LENS_INVALID_CONFIG', `nemo-lens: ${message}`);
}
