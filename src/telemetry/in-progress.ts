/**
 * In-progress snapshots of long-open spans: a hung step is visible in the backend while it
 * hangs, not only after the scheduler kills the job (and then only if the exit flush ran).
 *
 * A span open longer than `NEMO_LENS_IN_PROGRESS_AFTER_MS` (default 10 s, 0 = off) is
 * exported as a snapshot, again at most once per threshold while it stays open. The export
 * worker cuts them (it knows every start and end, so this works while the main thread is
 * stuck in a synchronous loop). What a snapshot is, so that a backend never counts a
 * snapshot and the final span as two runs of one operation:
 *   - its own span id (so it never collides with the final span, which keeps the real id),
 *     the same trace and the same parent: it sits where the span will be;
 *   - the name `"<name> (in progress)"`: per-operation counts and latency stay those of real
 *     runs, while a search for the operation's name still finds it;
 *   - attributes: those given at start, plus `nemo.span.in_progress = true`,
 *     `nemo.span.in_progress.span_id = <the real span id>` and
 *     `nemo.span.in_progress.snapshot = <1, 2, ...>`; a link to the real span;
 *   - start = the span's start, end = the snapshot time (OTLP requires an end time).
 * The final span, when it ends (or is truncated at exit), has none of these.
 */
import { randomBytes } from 'node:crypto';
import type { HrTime } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { toReadableSpan, type OpenSpan, type StartRecord } from './export-worker/records';

export const IN_PROGRESS_ATTRIBUTE = 'nemo.span.in_progress';
export const IN_PROGRESS_SPAN_ID_ATTRIBUTE = 'nemo.span.in_progress.span_id';
export const IN_PROGRESS_SNAPSHOT_ATTRIBUTE = 'nemo.span.in_progress.snapshot';
export const IN_PROGRESS_NAME_SUFFIX = ' (in progress)';
export const DEFAULT_IN_PROGRESS_AFTER_MS = 10_000;

type Env = Readonly<Record<string, string | undefined>>;

/** `NEMO_LENS_IN_PROGRESS_AFTER_MS`: a whole number of milliseconds >= 0; else the default, with the reason. */
export function inProgressAfterMs(env: Env = process.env): { ms: number; problem?: string } {
  const raw = env['NEMO_LENS_IN_PROGRESS_AFTER_MS']?.trim();
  if (raw === undefined || raw === '') return { ms: DEFAULT_IN_PROGRESS_AFTER_MS };
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value)) {
    return { ms: DEFAULT_IN_PROGRESS_AFTER_MS, problem: `NEMO_LENS_IN_PROGRESS_AFTER_MS=${JSON.stringify(raw)} is not a whole number of milliseconds` };
  }
  return { ms: value };
}

/** Snapshots of the spans in `open` due at `nowMs`; updates their counters. */
export function dueSnapshots(open: Iterable<OpenSpan>, afterMs: number, nowMs: number, resource: Resource): ReadableSpan[] {
  if (afterMs <= 0) return [];
  const due: ReadableSpan[] = [];
  for (const entry of open) {
    if (nowMs - entry.lastAtMs < afterMs) continue;
    entry.snapshots++;
    entry.lastAtMs = nowMs;
    due.push(snapshot(entry.record, entry.snapshots, nowMs, resource));
  }
  return due;
}

export function snapshot(record: StartRecord, count: number, nowMs: number, resource: Resource): ReadableSpan {
  const [, traceId, spanId, traceFlags, , , , name, , , , attributes] = record;
  return toReadableSpan(record, undefined, resource, {
    spanId: randomBytes(8).toString('hex'),
    name: `${name}${IN_PROGRESS_NAME_SUFFIX}`,
    endTime: msToHrTime(nowMs),
    attributes: { ...attributes, [IN_PROGRESS_ATTRIBUTE]: true, [IN_PROGRESS_SPAN_ID_ATTRIBUTE]: spanId, [IN_PROGRESS_SNAPSHOT_ATTRIBUTE]: count },
    links: [{ context: { traceId, spanId, traceFlags } }],
  });
}

/** When a start record's span started, in ms since the epoch. */
export function startMs(record: StartRecord): number {
  return record[9] * 1000 + record[10] / 1e6;
}

function msToHrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}
