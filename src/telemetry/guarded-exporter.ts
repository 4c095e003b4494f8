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
 *   process alive for 30 s) once `shutdown` has given up on a hung collector, and releases
 *   the OTLP exporter's retries and sockets (otlp-release.ts), so that nothing of nemo-lens
 *   keeps the process alive after `shutdown()` resolved.
 * - Warnings say what happened — the connection was refused, the request timed out, the
 *   collector answered HTTP 400 — rather than "did not answer" for everything
 *   (`describeExportFailure`, also usable where the exporter runs elsewhere, e.g. a worker).
 *   While the exporter is still retrying, the last attempt's problem is known too
 *   (`lastProblem`), for the shutdown-timeout warning.
 */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { describe } from '../errors';
import { emitWarning } from '../warnings';
import { hookOtlpExporter, type AttemptResponse, type ReleaseHook } from './otlp-release';

type Callback = (result: ExportResult) => void;

export interface ExportTarget {
  readonly description: string;
  readonly hint: string;
}

/** Network error codes, as Node reports them, in words. */
const NETWORK_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused (nothing listens there, or a firewall rejects it)',
  ECONNRESET: 'the connection was reset before the collector answered',
  EPIPE: 'the connection was closed while sending',
  ETIMEDOUT: 'the connection timed out',
  ENOTFOUND: "the collector's host name could not be resolved",
  EAI_AGAIN: "the collector's host name could not be resolved (DNS did not answer)",
  EHOSTUNREACH: "the collector's host is unreachable",
  ENETUNREACH: "the collector's network is unreachable",
  ECONNABORTED: 'the connection was aborted',
  CERT_HAS_EXPIRED: "the collector's TLS certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the collector's TLS certificate is self-signed (set OTEL_EXPORTER_OTLP_CERTIFICATE)",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the collector's TLS certificate could not be verified (set OTEL_EXPORTER_OTLP_CERTIFICATE)",
};

function excerpt(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
}

/**
 * What a failed export met, in words: `connection refused (ECONNREFUSED 127.0.0.1:4318)`,
 * `the request timed out`, `the collector answered HTTP 400 Bad Request: <body>`. Never throws.
 */
export function describeExportFailure(error: unknown): string {
  try {
    if (!(error instanceof Error)) return error === undefined ? 'no reason given' : excerpt(typeof error === 'string' ? error : describe(error));
    const { code, address, port, hostname } = error as Error & { code?: unknown; address?: unknown; port?: unknown; hostname?: unknown };
    if (typeof code === 'string' && NETWORK_ERRORS[code] !== undefined) {
      const where = typeof address === 'string' ? ` ${address}${typeof port === 'number' || typeof port === 'string' ? `:${port}` : ''}` : typeof hostname === 'string' ? ` ${hostname}` : '';
      return `${NETWORK_ERRORS[code]} (${code}${where})`;
    }
    if (error.message === 'socket hang up') return 'the connection was closed before the collector answered (socket hang up)';
    if (error.message === 'Request timed out') return 'the request timed out: the collector accepted the connection but did not answer (OTEL_EXPORTER_OTLP_TIMEOUT)';
    if (error.message === 'Timeout') return 'the export timed out (the batch processor stopped waiting; OTEL_BSP_EXPORT_TIMEOUT)';
    if (error.message === 'Export failed with retryable status') {
      return 'the collector kept answering with a retryable HTTP status (429, 502, 503 or 504) until the exporter gave up';
    }
    if (error.name === 'OTLPExporterError' && typeof code === 'number') {
      const data = (error as { data?: unknown }).data;
      const body = typeof data === 'string' && data.trim() !== '' ? `: ${excerpt(data)}` : '';
      return `the collector answered HTTP ${code}${error.message ? ` ${error.message}` : ''}${body}`;
    }
    return excerpt(error.message || error.name || 'an error without a message');
  } catch {
    return 'an error that cannot be described';
  }
}

export class GuardedExporter implements SpanExporter {
  private failing = false;
  private problem: string | undefined;
  private abandoning = false;
  private readonly release: ReleaseHook | undefined;
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
  ) {
    this.release = hookOtlpExporter(inner, (response) => this.noteAttempt(response));
  }

  /** What the last failed attempt or export met, while no export has succeeded since. */
  get lastProblem(): string | undefined {
    return this.problem;
  }

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
    this.release?.release(reason);
    const waiting = [...this.pending];
    const wasFailing = this.failing;
    this.failing = true;
    this.abandoning = true;
    for (const answer of waiting) answer({ code: ExportResultCode.FAILED, error: new Error(reason) });
    this.abandoning = false;
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

  private noteAttempt(response: AttemptResponse): void {
    if (response.status === 'success') this.problem = undefined;
    else this.problem = response.error === undefined ? 'the collector answered with a retryable HTTP status (429, 502, 503 or 504)' : describeExportFailure(response.error);
  }

  private record(result: ExportResult, count: number): void {
    if (result.code === ExportResultCode.SUCCESS) {
      this.failing = false;
      this.problem = undefined;
      return;
    }
    // The exporter's final error is vaguer than its attempts' ("retryable status"): keep theirs.
    // Answers from abandon() carry our own reason, not news about the collector.
    if (!this.abandoning && (this.problem === undefined || result.error?.message !== 'Export failed with retryable status')) {
      this.problem = describeExportFailure(result.error);
    }
    if (this.failing) return;
    this.failing = true;
    const why = `: ${this.problem ?? 'no reason given'}`;
    emitWarning(
      'NEMO_LENS_EXPORT_FAILED',
      `nemo-lens: exporting ${count} span${count === 1 ? '' : 's'} to ${this.target.description} failed${why}. ` +
        `Spans are dropped until an export succeeds again (this warning is not repeated until then). ${this.target.hint}`,
    );
  }
}
