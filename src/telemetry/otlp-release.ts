/**
 * Letting go of the OpenTelemetry OTLP HTTP exporter, and hearing what each attempt met.
 *
 * Why: the exporter retries a failed export (up to 5 attempts, 1–5 s apart, all within
 * OTEL_EXPORTER_OTLP_TIMEOUT, 10 s by default) on timers that keep the event loop alive, and
 * a request to a collector that hangs holds its socket until that timeout. Measured: a job
 * lingered 8–10 s after `shutdown()` had resolved, against a refusing or a hanging collector.
 * And the exporter reports only its final result, so while it retries nobody can say
 * whether the collector refused the connection, hung, or answered with an error status.
 *
 * The exporter has no public hook for either, so this module wraps two methods of its
 * transport chain — `OTLPExporterBase._delegate._transport` is the `RetryingTransport`
 * (`retry`, and `_transport`, the `HttpExporterTransport` with `send` and its agent in
 * `_utils.agent`) — recognised by shape. On another shape (a future version, a gRPC
 * exporter) it does nothing and the exporter behaves as it always did;
 * `__test__/telemetry-endpoints.spec.ts` (a child process that must exit promptly) fails
 * loudly on such a version, by design.
 *
 * - every attempt's response goes to `onAttempt` (for the warning texts, see guarded-exporter.ts);
 * - `release(reason)`: pending retry timers are cleared, the request in flight is cut (the
 *   agent's sockets destroyed), and every later attempt fails at once with `reason`, so the
 *   exporter's retry loop ends and nothing of it keeps the process alive. Until then its
 *   retries keep their timers: a job ending naturally still waits for a collector's blip.
 */

export interface AttemptResponse {
  readonly status: 'success' | 'failure' | 'retryable';
  readonly error?: Error;
  readonly retryInMillis?: number;
}

interface Transport {
  send(data: Uint8Array, timeoutMillis: number): Promise<AttemptResponse>;
  _utils?: { agent?: { destroy?: () => void } } | null;
}

interface RetryingTransport {
  retry: (data: Uint8Array, timeoutMillis: number, inMillis: number) => Promise<AttemptResponse>;
  _transport: Transport;
}

export interface ReleaseHook {
  release(reason: string): void;
}

function retryingTransportOf(exporter: unknown): RetryingTransport | undefined {
  const retrying = (exporter as { _delegate?: { _transport?: Partial<RetryingTransport> } } | null)?._delegate?._transport;
  if (typeof retrying?.retry !== 'function' || typeof retrying._transport?.send !== 'function') return undefined;
  return retrying as RetryingTransport;
}

/** Wrap `exporter`'s transport (see the module comment); `undefined` when it is not the shape we know. */
export function hookOtlpExporter(exporter: unknown, onAttempt: (response: AttemptResponse) => void): ReleaseHook | undefined {
  const retrying = retryingTransportOf(exporter);
  if (retrying === undefined) return undefined;
  const inner = retrying._transport;
  const send = inner.send.bind(inner);
  let released: Error | undefined;
  const failed = (): AttemptResponse => ({ status: 'failure', error: released });
  const waiting = new Set<{ timer: ReturnType<typeof setTimeout>; resolve: (response: AttemptResponse) => void }>();

  inner.send = async (data, timeoutMillis) => {
    if (released) return failed();
    const response = await send(data, timeoutMillis);
    try {
      onAttempt(response);
    } catch {
      // Observing must never change the export.
    }
    // Released while this attempt was in flight: end the retry loop here.
    return released ? failed() : response;
  };
  retrying.retry = (data, timeoutMillis, inMillis) =>
    new Promise<AttemptResponse>((resolve, reject) => {
      if (released) {
        resolve(failed());
        return;
      }
      const entry = {
        resolve,
        timer: setTimeout(() => {
          waiting.delete(entry);
          inner.send(data, timeoutMillis).then(resolve, reject);
        }, inMillis),
      };
      waiting.add(entry);
    });

  return {
    release(reason: string): void {
      if (released) return;
      released = new Error(reason);
      for (const entry of waiting) {
        clearTimeout(entry.timer);
        entry.resolve(failed());
      }
      waiting.clear();
      try {
        inner._utils?.agent?.destroy?.();
      } catch {
        // The sockets are the exporter's; failing to close them must not fail the shutdown.
      }
    },
  };
}
