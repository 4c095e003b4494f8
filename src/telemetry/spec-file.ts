/**
 * A live span-group spec for the whole job: `NEMO_LENS_SPAN_GROUPS_FILE=<path>`.
 *
 * Why: to turn on more groups in a running job there was only the in-process API, so a user
 * had to have written code for it beforehand. With one file on a shared filesystem, one write
 * reconfigures every rank of a job at once (`echo all > $NEMO_LENS_SPAN_GROUPS_FILE`).
 *
 * What it does:
 *   - at setup the spec is the file's first non-blank line (a leading BOM dropped); while the
 *     file is missing (or blank: a writer may have just truncated it), the environment spec
 *     (`NEMO_LENS_SPAN_GROUPS`) applies;
 *   - every `NEMO_LENS_SPAN_GROUPS_FILE_POLL_MS` (default 2000) one `stat`; the file is read
 *     only when its size, mtime, ctime or inode changed, or when the last change was so recent
 *     that a same-size rewrite within the filesystem's timestamp granularity could hide
 *     (git's "racy" rule: re-read while the mtime is younger than 3 s). A changed spec is
 *     applied with `setSpanGroupSpec`, so it warns as usual (pending names and so on);
 *   - a file that disappears keeps the last spec; an unreadable one (a directory, no
 *     permission) warns `NEMO_LENS_SPEC_FILE_UNREADABLE` once per run of failures and keeps
 *     the current spec;
 *   - polling runs on an unref'd timer, one poll at a time (a slow filesystem delays the next
 *     poll instead of piling stats up), and stops at shutdown.
 *
 * Cost: per process, one `stat` per interval plus one small read per change. A 10,000-rank job
 * makes 5,000 stats per second of one file, all answered from the metadata server's cache of
 * one inode (on Lustre, with client-side attribute caching, mostly from the client's own
 * cache); the README's "Live spec file" gives the figures.
 *
 * The core, `pollSpecFile(path, state)`, uses only `fs` and returns what to do; it has no
 * timer, no registry and no warnings, so it can run where export runs (an export worker
 * thread could poll on its own schedule during a synchronous hang of the main thread and post
 * the new spec, which the main thread applies when it runs again). `__test__/telemetry-spec-file.spec.ts`
 * holds all this in place.
 */
import { closeSync, openSync, promises as fsp, readSync, statSync, type Stats } from 'node:fs';
import * as path from 'node:path';

import { NemoLensError, describe } from '../errors';
import { setSpanGroupSpec } from '../registry';
import { emitWarning } from '../warnings';

export const SPEC_FILE_VARIABLE = 'NEMO_LENS_SPAN_GROUPS_FILE';
export const SPEC_FILE_POLL_VARIABLE = 'NEMO_LENS_SPAN_GROUPS_FILE_POLL_MS';
export const DEFAULT_POLL_MS = 2000;
/** A change younger than this is read again at the next poll (timestamp granularity up to 1-2 s). */
const RACY_MS = 3000;
/** Only the start of the file matters: its first non-blank line. */
const MAX_READ_BYTES = 1 << 20;

type Env = Readonly<Record<string, string | undefined>>;

/** What the last poll saw, carried from poll to poll (plain data: it can cross a thread). */
export interface SpecFileState {
  /** size/mtime/ctime/inode of the last stat, or undefined while the file is missing. */
  signature?: string;
  /** The spec read last (first non-blank line), or undefined when none was read yet. */
  spec?: string;
  /** The last change was recent: read again even if the signature is the same. */
  racy?: boolean;
  /** The last poll could not read the file (reported once per run). */
  unreadable?: boolean;
}

export type SpecFileOutcome =
  /** A spec that differs from `state.spec` (apply it). */
  | { readonly kind: 'changed'; readonly spec: string }
  /** Nothing new: unchanged, blank, or missing (the last spec stays). */
  | { readonly kind: 'same' }
  /** The file exists but cannot be read; `first` is true for the first failure of a run. */
  | { readonly kind: 'unreadable'; readonly reason: string; readonly first: boolean };

export interface SpecFileSettings {
  readonly path: string;
  readonly pollMs: number;
}

/** `NEMO_LENS_SPAN_GROUPS_FILE` and its poll interval, checked; undefined when the variable is unset or blank. */
export function specFileSettings(env: Env = process.env): SpecFileSettings | undefined {
  const raw = env[SPEC_FILE_VARIABLE];
  if (raw === undefined || raw.trim() === '') return undefined;
  const pollRaw = env[SPEC_FILE_POLL_VARIABLE];
  let pollMs = DEFAULT_POLL_MS;
  if (pollRaw !== undefined && pollRaw.trim() !== '') {
    pollMs = Number(pollRaw.trim());
    if (!Number.isInteger(pollMs) || pollMs < 100 || pollMs > 2 ** 31 - 1) {
      throw new NemoLensError(
        'ERR_NEMO_LENS_INVALID_CONFIG',
        `nemo-lens: ${SPEC_FILE_POLL_VARIABLE}=${describe(pollRaw)} is not a poll interval; use a whole number of milliseconds, at least 100 ` +
          `(default ${DEFAULT_POLL_MS}).`,
      );
    }
  }
  return { path: path.resolve(raw.trim()), pollMs };
}

function signatureOf(stats: Stats): string {
  return `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}`;
}

/** The first non-blank line of `text` (BOM dropped, trimmed), or undefined when it has none. */
export function firstSpecLine(text: string): string | undefined {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (const line of body.split(/\r?\n/)) {
    if (line.trim() !== '') return line.trim();
  }
  return undefined;
}

function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' ? `${code}: ${message}` : message;
}

/** A buffer for a file of `size` bytes (it may grow between stat and read: a little headroom). */
function bufferFor(size: number): Buffer {
  return Buffer.allocUnsafe(Math.min(MAX_READ_BYTES, Math.max(size + 1024, 4096)));
}

async function readStart(file: string, size: number): Promise<string> {
  const handle = await fsp.open(file, 'r');
  try {
    const buffer = bufferFor(size);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.toString('utf8', 0, bytesRead);
  } finally {
    await handle.close();
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * One poll: stat `file`, read it when it may have changed, and say what to do. Updates
 * `state` in place. Never throws. Uses only `fs`: it can run on any thread.
 */
export async function pollSpecFile(file: string, state: SpecFileState, now: number = Date.now()): Promise<SpecFileOutcome> {
  let stats: Stats;
  try {
    stats = await fsp.stat(file);
  } catch (error) {
    if (isMissing(error)) {
      state.signature = undefined;
      state.racy = false;
      return { kind: 'same' }; // a file that disappears keeps the last spec
    }
    return unreadable(state, reasonOf(error));
  }
  const signature = signatureOf(stats);
  if (signature === state.signature && !state.racy && !state.unreadable) return { kind: 'same' };
  let text: string;
  try {
    if (stats.isDirectory()) throw Object.assign(new Error('it is a directory'), { code: 'EISDIR' });
    text = await readStart(file, stats.size);
  } catch (error) {
    if (isMissing(error)) return { kind: 'same' };
    return unreadable(state, reasonOf(error));
  }
  state.signature = signature;
  state.racy = now - stats.mtimeMs < RACY_MS;
  state.unreadable = false;
  const spec = firstSpecLine(text);
  if (spec === undefined || spec === state.spec) return { kind: 'same' };
  state.spec = spec;
  return { kind: 'changed', spec };
}

function unreadable(state: SpecFileState, reason: string): SpecFileOutcome {
  const first = state.unreadable !== true;
  state.unreadable = true;
  return { kind: 'unreadable', reason, first };
}

function warnUnreadable(file: string, reason: string, current: string, when: string): void {
  emitWarning(
    'NEMO_LENS_SPEC_FILE_UNREADABLE',
    `nemo-lens: the span-group spec file ${file} (${SPEC_FILE_VARIABLE}) cannot be read ${when} (${reason}); ` +
      `keeping the current spec ${describe(current)}. Make it a readable file whose first non-blank line is the spec ` +
      '(this warning is not repeated until it has been read again).',
  );
}

/**
 * Watches the spec file for one setup: `start()` applies the file's spec (or keeps the
 * environment's) and polls; `stop()` ends polling. Applying goes through `setSpanGroupSpec`.
 */
export class SpecFileWatcher {
  private readonly state: SpecFileState = {};
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private current: string;

  constructor(
    private readonly settings: SpecFileSettings,
    envSpec: string,
    private readonly apply: (spec: string) => void = setSpanGroupSpec,
  ) {
    this.current = envSpec;
  }

  get path(): string {
    return this.settings.path;
  }

  /** The spec to apply at setup: the file's first non-blank line, else the environment's. */
  readInitial(): string {
    const spec = readInitialSync(this.settings.path, this.state, this.current);
    this.current = spec;
    return spec;
  }

  start(): void {
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** One poll now (tests; the timer calls the same). */
  async pollNow(): Promise<void> {
    if (this.stopped) return;
    this.handle(await pollSpecFile(this.settings.path, this.state));
  }

  /**
   * Act on a poll's outcome: apply a changed spec, warn at the first failure of a run. Public
   * so that a poll run elsewhere (an export worker posting its `SpecFileOutcome`s) can be
   * applied on this thread when it runs again.
   */
  handle(outcome: SpecFileOutcome): void {
    if (this.stopped) return;
    if (outcome.kind === 'changed') {
      this.current = outcome.spec;
      try {
        this.apply(outcome.spec);
      } catch {
        // A spec the registry refuses outright (it never throws for names) must not stop polling.
      }
    } else if (outcome.kind === 'unreadable' && outcome.first) {
      warnUnreadable(this.settings.path, outcome.reason, this.current, 'any more');
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.pollNow().finally(() => this.schedule());
    }, this.settings.pollMs);
    // Polling must never keep a finished process alive.
    this.timer.unref();
  }
}

/** The synchronous read at setup (setup itself is synchronous); same rules as a poll. */
function readInitialSync(file: string, state: SpecFileState, envSpec: string): string {
  let stats: Stats;
  try {
    stats = statSync(file);
  } catch (error) {
    if (isMissing(error)) return envSpec; // the environment spec is the fallback while the file is missing
    state.unreadable = true;
    warnUnreadable(file, reasonOf(error), envSpec, 'at setup');
    return envSpec;
  }
  let text: string;
  try {
    if (stats.isDirectory()) throw Object.assign(new Error('it is a directory'), { code: 'EISDIR' });
    const fd = openSync(file, 'r');
    try {
      const buffer = bufferFor(stats.size);
      const bytesRead = readSync(fd, buffer, 0, buffer.length, 0);
      text = buffer.toString('utf8', 0, bytesRead);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (isMissing(error)) return envSpec;
    state.unreadable = true;
    warnUnreadable(file, reasonOf(error), envSpec, 'at setup');
    return envSpec;
  }
  state.signature = signatureOf(stats);
  state.racy = Date.now() - stats.mtimeMs < RACY_MS;
  const spec = firstSpecLine(text);
  if (spec === undefined) return envSpec;
  state.spec = spec;
  return spec;
}

