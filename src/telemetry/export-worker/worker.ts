/**
 * The export worker thread: reads span records from the ring (ring.ts), keeps the open ones
 * for in-progress snapshots (in-progress.ts), queues the ended ones (export-queue.ts) and
 * sends them with the OTLP exporter chosen on the main thread, wrapped in the same
 * GuardedExporter as the main-thread path (so its failure warnings are the same).
 *
 * It runs on its own event loop: spans leave while the main thread is blocked, and a
 * synchronous flush at exit is answered (FLUSH_ACK) while the main thread waits in
 * `Atomics.wait`. Warnings go to the main thread as messages (`emitWarning` there reaches
 * the host's `onWarning` listeners and `process.emitWarning`), never printed from here.
 */
import './twin-backend';
import { parentPort, workerData } from 'node:worker_threads';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { onWarning } from '../../warnings';
import { GuardedExporter } from '../guarded-exporter';
import { installDiagLogger } from '../options';
import { dueSnapshots, startMs } from '../in-progress';
import { ExportQueue } from './export-queue';
import type { WorkerInit, WorkerMessage, WorkerProtocol } from './protocol';
import { END, recordBytes, START, toReadableSpan, type OpenSpan, type SpanRecord } from './records';
import { deadlineSlot, DROPPED, FINAL, FLUSH_ACK, FLUSH_REQ, LEFT, RingReader } from './ring';

const init = workerData as WorkerInit;
const post = (message: WorkerMessage): void => parentPort!.postMessage(message);

// Warnings of this realm go to the main thread only.
process.emitWarning = (() => undefined) as typeof process.emitWarning;
onWarning(({ code, message }) => post({ type: 'warning', code, message }));
const warn = (code: string, message: string): void => post({ type: 'warning', code, message });

function buildExporter(protocol: WorkerProtocol): SpanExporter {
  switch (protocol) {
    case 'http/json': {
      const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
      return new OTLPTraceExporter();
    }
    case 'grpc': {
      const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-grpc') as { OTLPTraceExporter: new () => SpanExporter };
      return new OTLPTraceExporter();
    }
    default: {
      const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
      return new OTLPTraceExporter();
    }
  }
}

// OTEL_LOG_LEVEL: the exporter's own diagnostics (its retries, refused connections) are logged
// in the realm where it runs, as the main thread would (options.ts).
installDiagLogger();

const resource = resourceFromAttributes(init.resource);
const exporter = new GuardedExporter(buildExporter(init.protocol), init.target);
const queue = new ExportQueue(exporter, { ...init.queue, target: init.target.description, warn });
const reader = new RingReader(init.ring);
const header = reader.header;
const deadline = deadlineSlot(init.ring);
const open = new Map<string, OpenSpan>();
let droppedAtHandOff = 0;
let acked = 0;
let flushing = false;

/** Ends whose start never arrived (a full ring dropped it, or it was not valid JSON). */
let orphanEnds = 0;

function take(text: string): void {
  const record = JSON.parse(text) as SpanRecord;
  if (record[0] === START) {
    open.set(record[2], { record, textLength: text.length, snapshots: 0, lastAtMs: startMs(record) });
  } else if (record[0] === END) {
    const started = open.get(record[1]);
    if (started === undefined) {
      orphanEnds++;
      return;
    }
    open.delete(record[1]);
    queue.push(toReadableSpan(started.record, record, resource), recordBytes(started.textLength, text.length));
  }
}

/** Read the ring: again at once while frames keep coming (a burst must not fill it), else every pollMs. */
function pollLoop(): void {
  polling = undefined;
  const read = poll();
  if (!stopped) polling = read > 0 ? setImmediate(pollLoop) : setTimeout(pollLoop, init.pollMs);
}

function poll(): number {
  const read = reader.drain(take);
  // A span is lost at the hand-off when its start or its end was dropped: count ends, not frames.
  const dropped = Atomics.load(header, DROPPED);
  if (orphanEnds > 0 || dropped !== droppedAtHandOff) {
    queue.countDropped(orphanEnds + Math.ceil((dropped - droppedAtHandOff) / 2), 'the hand-off ring between the main thread and the export worker was full');
    droppedAtHandOff = dropped;
    orphanEnds = 0;
  }
  return read;
}

function snapshots(): void {
  if (flushing) return;
  for (const span of dueSnapshots(open.values(), init.inProgressAfterMs, Date.now(), resource)) queue.push(span, 1024);
}

/** Answer every flush request: export what was written before it, within its budget. */
async function flush(): Promise<void> {
  if (flushing) return;
  flushing = true;
  try {
    for (;;) {
      const request = Atomics.load(header, FLUSH_REQ);
      if (request <= acked) break;
      poll();
      let left = await queue.drain(deadline[0]!);
      const final = Atomics.load(header, FINAL) === 1;
      if (final) {
        stopped = true;
        if (polling !== undefined) clearTimeout(polling as NodeJS.Timeout);
        if (polling !== undefined) clearImmediate(polling as NodeJS.Immediate);
        clearInterval(snapshotting);
        left = queue.stop();
        Atomics.store(header, LEFT, left);
      }
      acked = request;
      Atomics.store(header, FLUSH_ACK, request);
      Atomics.notify(header, FLUSH_ACK);
      post({ type: 'flushed', request, left, failing: exporter.isFailing, problem: exporter.lastProblem });
      if (final) return;
    }
  } finally {
    flushing = false;
  }
}

function waitForRequests(): void {
  const seen = Atomics.load(header, FLUSH_REQ);
  if (seen > acked) {
    void flush().then(waitForRequests);
    return;
  }
  const waiting = Atomics.waitAsync(header, FLUSH_REQ, seen);
  if (waiting.async) void waiting.value.then(waitForRequests);
  else waitForRequests();
}

// At once: spans written while this thread was starting are waiting already.
let stopped = false;
let polling: NodeJS.Timeout | NodeJS.Immediate | undefined = setImmediate(pollLoop);
const snapshotting = setInterval(snapshots, Math.max(50, Math.min(1000, init.inProgressAfterMs / 4 || 1000)));
if (init.inProgressAfterMs <= 0) clearInterval(snapshotting);
waitForRequests();
