/**
 * The exporter every setup actually hands to the span processor: it wraps the chosen one so
 * that export problems never reach the host.
 *
 * - A failed export warns `NEMO_LENS_EXPORT_FAILED` once per run of consecutive failures (a
 *   collector that is down fails every batch; one warning says it, hundreds bury it). The next
 *   success ends the run, so a later outage warns again.
 * - An exporter that throws instead of calling back counts as a failed export.
 * - `abandon()` answers every export still waiting for its exporter with a failure, so the
 *   BatchSpanProcessor stops waiting (its own export timer is not unref'd and would keep the
 *   process alive for 30 s) once `shutdown` has given up on a hung collector.
 */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { emitWarning } from '../warnings';

type Callback = (result: ExportResult) => void;

export interface ExportTarget {
  readonly description: string;
  readonly hint: string;
}

export class GuardedExporter implements SpanExporter {
  private failing = false;
  private readonly pending = new Set<Callback>();
  /** Told how many spans each export takes off the processor's queue (see batch-processor.ts). */
  onHandOff: (count: number) => void = () => undefined;

  /**
   * @param target where spans go and what to check when that fails, for the warning
   *   (e.g. `{ description: 'OTLP http/protobuf at http://...', hint: 'Check that ...' }`).
   */
  constructor(
    readonly inner: SpanExporter,
    private readonly target: ExportTarget,
  ) {}

  export(spans: ReadableSpan[], resultCallback: Callback): void {
    this.onHandOff(spans.length);
    let answered = false;
    const answer: Callback = (result) => {
      if (answered) return;
      answered = true;
      this.pending.delete(answer);
      this.record(result, spans.length);
      try {
        resultCallback(result);
      } catch {
        // The processor's callback is not ours to crash on.
      }
    };
    this.pending.add(answer);
    try {
      this.inner.export(spans, (result) => answer(result ?? { code: ExportResultCode.FAILED }));
    } catch (error) {
      answer({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) });
    }
  }

  /**
   * Fail every export still waiting for the inner exporter (see the module comment). The
   * caller reports this itself (a shutdown timeout), so it does not count as a failure run.
   */
  abandon(reason: string): void {
    const waiting = [...this.pending];
    const wasFailing = this.failing;
    this.failing = true;
    for (const answer of waiting) answer({ code: ExportResultCode.FAILED, error: new Error(reason) });
    this.failing = wasFailing;
  }

  /** In a run of failed exports, already reported: spans are being dropped. */
  get isFailing(): boolean {
    return this.failing;
  }

  get description(): string {
    return this.target.description;
  }

  async forceFlush(): Promise<void> {
    try {
      await this.inner.forceFlush?.();
    } catch {
      // A failed flush is a failed export, already reported through export().
    }
  }

  async shutdown(): Promise<void> {
    try {
      await this.inner.shutdown();
    } catch {
      // Shutting down must not reject: the host is usually on its way out.
    }
  }

  private record(result: ExportResult, count: number): void {
    if (result.code === ExportResultCode.SUCCESS) {
      this.failing = false;
      return;
    }
    if (this.failing) return;
    this.failing = true;
    const why = result.error?.message ? `: ${result.error.message}` : '';
    emitWarning(
      'NEMO_LENS_EXPORT_FAILED',
      `nemo-lens: exporting ${count} span${count === 1 ? '' : 's'} to ${this.target.description} failed${why}. ` +
        `Spans are dropped until an export succeeds again (this warning is not repeated until then). ${this.target.hint}`,
    );
  }
}
