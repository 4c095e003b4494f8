/**
 * The SDK's BatchSpanProcessor, watched: when its queue is full it drops spans and tells only
 * OpenTelemetry's `diag` logger, which hosts rarely enable. This processor keeps the same
 * count the batch processor keeps (spans queued, not yet handed to the exporter) and warns
 * `NEMO_LENS_SPANS_DROPPED` once per run of drops, so spans are never lost silently.
 */
import { TraceFlags, type Context } from '@opentelemetry/api';
import { BatchSpanProcessor, type ReadableSpan, type Span, type SpanProcessor } from '@opentelemetry/sdk-trace';

import { emitWarning } from '../warnings';
import type { GuardedExporter } from './guarded-exporter';
import { batchLimitsFromEnv } from './otel-env';

export class WatchedBatchSpanProcessor implements SpanProcessor {
  private readonly batch: BatchSpanProcessor;
  private readonly maxQueueSize: number;
  /** Spans the batch processor holds: accepted by onEnd, not yet handed to the exporter. */
  private queued = 0;
  private dropping = false;
  private stopped = false;

  constructor(private readonly exporter: GuardedExporter) {
    // `OTEL_BSP_*`: @opentelemetry/sdk-trace leaves them to the caller (sdk-trace-base's shim read them).
    const limits = batchLimitsFromEnv();
    this.maxQueueSize = limits.maxQueueSize;
    // Passed explicitly so that the processor and this count use the same numbers.
    this.batch = new BatchSpanProcessor({ exporter, ...limits });
    exporter.onHandOff = (count) => {
      this.queued = Math.max(0, this.queued - count);
    };
  }

  onStart(span: Span, parentContext: Context): void {
    this.batch.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    // The batch processor ignores these two; so does the count.
    if (!this.stopped && (span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0) this.count();
    this.batch.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.batch.forceFlush();
  }

  shutdown(): Promise<void> {
    this.stopped = true;
    return this.batch.shutdown();
  }

  private count(): void {
    if (this.queued < this.maxQueueSize) {
      this.queued++;
      this.dropping = false;
      return;
    }
    if (this.dropping) return;
    this.dropping = true;
    emitWarning(
      'NEMO_LENS_SPANS_DROPPED',
      `nemo-lens: the span queue is full (${this.maxQueueSize} spans waiting for ${this.exporter.description}), so new spans are dropped ` +
        'until the exporter catches up (this warning is not repeated until then). Raise OTEL_BSP_MAX_QUEUE_SIZE, ' +
        'select fewer span groups (NEMO_LENS_SPAN_GROUPS), or check that the collector keeps up.',
    );
  }
}
