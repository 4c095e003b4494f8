/**
 * The main thread's half of the export worker: a SpanProcessor that writes each sampled
 * span's start and end into the ring (ring.ts) and nothing else, plus the two ways to wait
 * for the worker: `flushSync` (Atomics.wait, for `process.exit`, signals and uncaught
 * errors, where nothing asynchronous runs again) and `shutdown` (a message round trip).
 *
 * Cost on the enabled path: one `JSON.stringify` of a positional array and one string write
 * per start and per end (bench/ "enabled span" has the figures, before and after, in one
 * run). Nothing is batched on this side, so a span ended just before the main thread
 * blocks is already in shared memory; the worker picks it up on its next poll.
 */
import { TraceFlags, type Attributes, type Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Worker } from 'node:worker_threads';
import { emitWarning } from '../../warnings';
import type { ExportTarget } from '../guarded-exporter';
import { EXPORT_WORKER_MARKER, type WorkerInit, type WorkerMessage, type WorkerProtocol } from './protocol';
import { endText, startText } from './records';
import { createRing, deadlineSlot, FINAL, FLUSH_ACK, FLUSH_REQ, LEFT, RingWriter } from './ring';
import { spawnExportWorker, workerEntry } from './spawn';

export interface ExportWorkerOptions {
  readonly protocol: WorkerProtocol;
  readonly target: ExportTarget;
  readonly resource: Attributes;
  readonly queue: WorkerInit['queue'];
  readonly inProgressAfterMs: number;
  readonly ringBytes: number;
}

/** How often the worker reads the ring: the delay before an ended span can leave the process. */
const POLL_MS = 50;

export class ExportWorkerProcessor implements SpanProcessor {
  private readonly ring: RingWriter;
  private readonly worker: Worker;
  private readonly flushed = new Map<number, () => void>();
  private readonly deadline: Float64Array;
  private alive = true;
  private stopped: Promise<void> | undefined;
  /** When `shutdown()` must have drained, in ms since the epoch (set by setup.ts before the provider shuts down). */
  shutdownDeadline = Infinity;
  /** The worker's answer to the last final drain: spans it could not send, and whether an outage was already reported. */
  outcome: { readonly left: number; readonly failing: boolean; readonly problem?: string | undefined } | undefined;

  /** Undefined when the worker's entry file is missing (a bundle without it): use the main-thread path. */
  static start(options: ExportWorkerOptions): ExportWorkerProcessor | undefined {
    const entry = workerEntry();
    return entry === undefined ? undefined : new ExportWorkerProcessor(entry, options);
  }

  private constructor(entry: { file: string; typescript: boolean }, options: ExportWorkerOptions) {
    const buffers = createRing(options.ringBytes);
    this.ring = new RingWriter(buffers);
    this.deadline = deadlineSlot(buffers);
    const init: WorkerInit = {
      [EXPORT_WORKER_MARKER]: true,
      ring: buffers,
      protocol: options.protocol,
      target: options.target,
      resource: options.resource,
      queue: options.queue,
      inProgressAfterMs: options.inProgressAfterMs,
      pollMs: POLL_MS,
    };
    this.worker = spawnExportWorker(entry, init);
    this.worker.on('message', (message: WorkerMessage) => this.onMessage(message));
    this.worker.on('error', (error) => {
      this.alive = false;
      emitWarning(
        'NEMO_LENS_EXPORT_WORKER_FAILED',
        `nemo-lens: the export worker thread failed (${error.message}); spans are no longer exported in this process. ` +
          'Please report this with the message above; set NEMO_LENS_EXPORT_WORKER=false to export from the main thread instead.',
      );
    });
    this.worker.on('exit', () => {
      this.alive = false;
      for (const resolve of this.flushed.values()) resolve();
      this.flushed.clear();
    });
    // After the listeners: adding a 'message' listener refs the worker's port again.
    this.worker.unref();
  }

  onStart(span: Span, _parentContext: Context): void {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0) this.ring.write(startText(span));
  }

  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0) this.ring.write(endText(span));
  }

  /**
   * Block until the worker has exported everything written so far, or `budgetMs` passed.
   * For the `'exit'` event and signals, where the event loop will not run again.
   */
  flushSync(budgetMs: number): 'done' | 'timeout' {
    if (!this.alive) return 'timeout';
    // The worker stops sending a little before the bound, so that its answer arrives within it.
    const deadline = Date.now() + budgetMs;
    const request = this.request(deadline - Math.min(100, budgetMs / 10), true);
    const header = this.ring.header;
    for (;;) {
      const acked = Atomics.load(header, FLUSH_ACK);
      if (acked >= request) {
        this.outcome = { left: Atomics.load(header, LEFT), failing: false };
        return 'done';
      }
      const left = deadline - Date.now();
      if (left <= 0) return 'timeout';
      Atomics.wait(header, FLUSH_ACK, acked, left);
    }
  }

  async forceFlush(): Promise<void> {
    if (!this.alive || this.stopped !== undefined) return;
    await this.requestAsync(Date.now() + 30_000, false);
  }

  shutdown(): Promise<void> {
    this.stopped ??= this.stop();
    return this.stopped;
  }

  private async stop(): Promise<void> {
    if (this.alive) {
      this.worker.ref();
      await this.requestAsync(this.shutdownDeadline, true);
    }
    // After the answer (or the budget): nothing of nemo-lens keeps the process alive.
    await this.worker.terminate().catch(() => undefined);
  }

  private request(deadline: number, final: boolean): number {
    const header = this.ring.header;
    this.deadline[0] = deadline;
    if (final) Atomics.store(header, FINAL, 1);
    const request = Atomics.add(header, FLUSH_REQ, 1) + 1;
    Atomics.notify(header, FLUSH_REQ);
    return request;
  }

  /** A flush request answered by the worker's 'flushed' message (after its warnings), or 200 ms past the deadline. */
  private requestAsync(deadline: number, final: boolean): Promise<void> {
    return new Promise<void>((resolve) => {
      const request = this.request(deadline, final);
      const wait = deadline - Date.now() + 200;
      // Beyond setTimeout's range (an Infinity bound): wait for the answer only.
      const timer = wait < 2 ** 31 - 1 ? setTimeout(done, Math.max(0, wait)) : undefined;
      timer?.unref();
      function done(): void {
        if (timer !== undefined) clearTimeout(timer);
        resolve();
      }
      this.flushed.set(request, done);
    });
  }

  private onMessage(message: WorkerMessage): void {
    if (message.type === 'warning') {
      emitWarning(message.code, message.message);
      return;
    }
    if (Atomics.load(this.ring.header, FINAL) === 1) this.outcome = { left: message.left, failing: message.failing, problem: message.problem };
    for (const [request, resolve] of this.flushed) {
      if (request <= message.request) {
        this.flushed.delete(request);
        resolve();
      }
    }
  }
}
