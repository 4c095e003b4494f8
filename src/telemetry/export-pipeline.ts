/**
 * Which export path a setup gets, behind one shape (`ExportPipeline`) that setup.ts and the
 * exit hooks use without knowing which it is:
 *   - the export worker (export-worker/): for the OTLP exporters, which the worker builds
 *     itself from the same plan. Spans leave while the main thread is blocked, outages are
 *     buffered and retried (export-queue.ts), long-open spans get in-progress snapshots;
 *   - the main thread: for an injected `spanExporter` (an object of the host or a test,
 *     which cannot move to another thread), the console exporter (its output belongs on the
 *     main thread's stdout, in order), `NEMO_LENS_EXPORT_WORKER=false`, and a bundle that
 *     left the worker's file out. The SDK's BatchSpanProcessor, watched (batch-processor.ts);
 *     its `forceFlush` hands every queued span to the exporter synchronously, which is what
 *     the exit flush needs.
 */
import type { Attributes } from '@opentelemetry/api';
import { getNumberFromEnv } from '@opentelemetry/core';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import { NemoLensError } from '../errors';
import { emitWarning } from '../warnings';
import { ExportWorkerProcessor } from './export-worker/processor';
import type { ExporterPlan } from './exporters';
import { GuardedExporter } from './guarded-exporter';
import { inProgressAfterMs } from './in-progress';

export interface ExportPipeline {
  readonly processor: SpanProcessor;
  /** Where spans go, for messages. */
  readonly description: string;
  /** The main-thread path's exporter (for the shutdown timeout's abandon), else undefined. */
  readonly exporter: GuardedExporter | undefined;
  /** The worker path's processor, else undefined. */
  readonly worker: ExportWorkerProcessor | undefined;
  /** Hand everything ended so far to the exporter, synchronously, within `budgetMs`. */
  flushSync(budgetMs: number): void;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Default bound of the worker's export buffer: 64 MiB (see export-worker/export-queue.ts). */
export const DEFAULT_EXPORT_BUFFER_BYTES = 64 * 2 ** 20;
/** The hand-off ring between the threads; the worker empties it every 50 ms. */
const RING_BYTES = 8 * 2 ** 20;

export function buildExportPipeline(
  plan: ExporterPlan,
  resource: Attributes,
  options: { readonly processor?: 'batch' | 'simple' },
  /** The main-thread path's processor (setup.ts: the watched batch processor, or a simple one in tests). */
  mainThreadProcessor: (exporter: GuardedExporter) => SpanProcessor,
  env: Env = process.env,
): ExportPipeline | undefined {
  if (plan.build === undefined) return undefined;
  if (plan.otlp !== undefined && options.processor === undefined && workerWanted(env)) {
    const worker = ExportWorkerProcessor.start({
      protocol: plan.otlp,
      target: plan.target,
      resource,
      queue: queueSettings(env),
      inProgressAfterMs: inProgressSetting(env),
      ringBytes: RING_BYTES,
    });
    if (worker !== undefined) {
      return { processor: worker, description: plan.target.description, exporter: undefined, worker, flushSync: (budgetMs) => void worker.flushSync(budgetMs) };
    }
    emitWarning(
      'NEMO_LENS_EXPORT_WORKER_UNAVAILABLE',
      'nemo-lens: the export worker file (dist/telemetry/export-worker/worker.js) is missing, so spans are exported from the main thread: ' +
        'they wait while the main thread is blocked, and a collector outage longer than the exporter\'s retries loses them. ' +
        'If you bundle your application, copy that file beside the bundle (as pino transports need), or mark nemo-lens as external.',
    );
  }
  const exporter = new GuardedExporter(plan.build(), plan.target);
  const processor = mainThreadProcessor(exporter);
  return {
    processor,
    description: plan.target.description,
    exporter,
    worker: undefined,
    flushSync: () => {
      // Synchronous as far as the exporter is: the batch processor calls export() at once.
      void processor.forceFlush().catch(() => undefined);
    },
  };
}

function workerWanted(env: Env): boolean {
  const raw = env['NEMO_LENS_EXPORT_WORKER']?.trim().toLowerCase();
  if (raw === undefined || raw === '' || ['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new NemoLensError(
    'ERR_NEMO_LENS_INVALID_CONFIG',
    `nemo-lens: NEMO_LENS_EXPORT_WORKER=${JSON.stringify(env['NEMO_LENS_EXPORT_WORKER'])} is not a boolean; use 1/0, true/false, yes/no or on/off.`,
  );
}

/** Check the export settings of `env` up front, so a bad value refuses the setup before anything is built. */
export function checkExportSettings(env: Env = process.env): void {
  workerWanted(env);
  queueSettings(env);
  inProgressSetting(env);
}

function queueSettings(env: Env): ExportWorkerQueue {
  const raw = env['NEMO_LENS_EXPORT_BUFFER_BYTES']?.trim();
  let maxBytes = DEFAULT_EXPORT_BUFFER_BYTES;
  if (raw !== undefined && raw !== '') {
    if (!/^\d+$/.test(raw) || Number(raw) < 1024) {
      throw new NemoLensError(
        'ERR_NEMO_LENS_INVALID_CONFIG',
        `nemo-lens: NEMO_LENS_EXPORT_BUFFER_BYTES=${JSON.stringify(raw)} is not a number of bytes >= 1024; use e.g. ${DEFAULT_EXPORT_BUFFER_BYTES} (64 MiB, the default).`,
      );
    }
    maxBytes = Number(raw);
  }
  // The SDK's variables keep their meaning where they have one; the span-count cap applies
  // only when set (the byte bound is what keeps memory in check).
  const maxSpans = getNumberFromEnv('OTEL_BSP_MAX_QUEUE_SIZE') ?? Number.MAX_SAFE_INTEGER;
  const batchSize = Math.max(1, Math.min(getNumberFromEnv('OTEL_BSP_MAX_EXPORT_BATCH_SIZE') ?? 512, maxSpans));
  return {
    maxBytes,
    maxSpans,
    batchSize,
    // A partial batch waits less than the SDK's 5 s: waiting costs the main thread nothing here.
    delayMs: getNumberFromEnv('OTEL_BSP_SCHEDULE_DELAY') ?? 1000,
    attemptTimeoutMs: getNumberFromEnv('OTEL_BSP_EXPORT_TIMEOUT') ?? 30_000,
  };
}

type ExportWorkerQueue = Parameters<typeof ExportWorkerProcessor.start>[0]['queue'];

function inProgressSetting(env: Env): number {
  const { ms, problem } = inProgressAfterMs(env);
  if (problem !== undefined) {
    throw new NemoLensError('ERR_NEMO_LENS_INVALID_CONFIG', `nemo-lens: ${problem}; use e.g. 10000 (the default), or 0 to turn in-progress snapshots off.`);
  }
  return ms;
}
