/** What the main thread tells the export worker at start, and the messages it sends back. */
import type { Attributes } from '@opentelemetry/api';
import type { ExportTarget } from '../guarded-exporter';
import type { RingBuffers } from './ring';

export type WorkerProtocol = 'http/protobuf' | 'http/json' | 'grpc';

/** The key in `workerData` that marks nemo-lens's own export worker (setupTelemetry stays dark there). */
export const EXPORT_WORKER_MARKER = 'nemoLensExportWorker';

export interface WorkerInit {
  readonly [EXPORT_WORKER_MARKER]: true;
  readonly ring: RingBuffers;
  readonly protocol: WorkerProtocol;
  readonly target: ExportTarget;
  readonly resource: Attributes;
  readonly queue: {
    readonly maxBytes: number;
    readonly maxSpans: number;
    readonly batchSize: number;
    readonly delayMs: number;
    readonly attemptTimeoutMs: number;
  };
  readonly inProgressAfterMs: number;
  readonly pollMs: number;
}

export type WorkerMessage =
  | { readonly type: 'warning'; readonly code: string; readonly message: string }
  | {
      readonly type: 'flushed';
      readonly request: number;
      readonly left: number;
      readonly failing: boolean;
      /** What the exporter's last failed attempt met, for the shutdown-timeout warning (GuardedExporter.lastProblem). */
      readonly problem: string | undefined;
    };
