/**
 * Living beside a host's own OpenTelemetry SDK (a `NodeSDK`, a `NodeTracerProvider`): one
 * process, one pipeline, and nothing decided silently.
 *
 * The OpenTelemetry API keeps one global tracer provider and refuses a second registration
 * (it only tells its `diag` logger). So whoever registers first wins, and the other must not
 * pretend otherwise:
 *   - **host first**: nemo-lens does not build a pipeline of its own beside the host's (that
 *     split one trace across two exporters). It sends its spans through the host's provider,
 *     as `tracesEnabled: false` does, and says so once (`NEMO_LENS_HOST_SDK_PRESENT`).
 *   - **nemo-lens first**: its provider is the global one, so a host SDK started later cannot
 *     register, and the host's instrumentation (HTTP, database spans) is exported by
 *     nemo-lens. `ForeignSpanWatch` notices the first span of another instrumentation scope
 *     and says so once (`NEMO_LENS_FOREIGN_SPANS`), naming the scope and how to choose;
 *     `foreignSpans: 'export'` is the explicit "yes, nemo-lens is this process's SDK".
 * `pipelineOf` tells a handle where its spans go now (`handle.pipeline`), read live because a
 * host can register after a gated setup.
 */
import type { Context, TracerProvider } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import { globalTracerProvider, isGlobalTracerProviderSet } from '../global-tracer-provider';
import { emitWarning } from '../warnings';

/** Where a setup's spans go: its own exporter, the host's SDK, or nowhere. */
export type PipelineName = 'nemo-lens' | 'host' | 'none';

/** `'warn'` (default): export spans of other instrumentation and say so once; `'export'`: quietly. */
export type ForeignSpans = 'warn' | 'export';

export const SCOPE_NAME = 'nemo-lens';

/** Marks the providers nemo-lens builds (any copy of it), so a setup never yields to another nemo-lens setup. */
const OWN_PROVIDER = Symbol.for('nemo-lens.tracer-provider');

export function markOwnProvider<P extends object>(provider: P): P {
  Object.defineProperty(provider, OWN_PROVIDER, { value: true });
  return provider;
}

/** A provider registered by a host SDK: registered, and not built by nemo-lens. */
export function hostProvider(): TracerProvider | undefined {
  const provider = registeredProvider();
  return provider !== undefined && (provider as unknown as Record<symbol, unknown>)[OWN_PROVIDER] !== true ? provider : undefined;
}

/** The SDK provider registered globally by someone (undefined: none, the API is a no-op). */
export function registeredProvider(): TracerProvider | undefined {
  if (!isGlobalTracerProviderSet()) return undefined;
  const provider = globalTracerProvider();
  // The no-op provider of another copy of the API is no SDK either.
  return provider.constructor?.name === 'NoopTracerProvider' ? undefined : provider;
}

/** Says, once, that nemo-lens sends its spans through the host's SDK instead of its own exporter. */
export function warnHostSdkPresent(unused: readonly string[]): void {
  const name = hostProvider()?.constructor?.name ?? 'a tracer provider';
  emitWarning(
    'NEMO_LENS_HOST_SDK_PRESENT',
    `nemo-lens: an OpenTelemetry SDK (${name}) was registered globally before setupTelemetry, so nemo-lens spans go through it: ` +
      "its sampler, processors, resource and exporter apply, and nemo-lens's own exporter is not used" +
      (unused.length > 0 ? ` (nor the options ${unused.join(', ')})` : '') +
      '. That keeps every span of a trace in one pipeline. To say this is what you want, set tracesEnabled: false ' +
      '(NEMO_LENS_TRACES_ENABLED=false); to export through nemo-lens instead, call setupTelemetry before the host SDK starts.',
  );
}

/** Warns at the first span of another instrumentation scope that nemo-lens's provider exports. */
export class ForeignSpanWatch implements SpanProcessor {
  private warned: boolean;

  constructor(
    mode: ForeignSpans,
    private readonly target: () => string,
  ) {
    this.warned = mode === 'export';
  }

  onStart(span: Span, _parentContext: Context): void {
    if (this.warned) return;
    const scope = (span as Partial<ReadableSpan>).instrumentationScope?.name;
    if (scope === undefined || scope === SCOPE_NAME) return;
    this.warned = true;
    emitWarning(
      'NEMO_LENS_FOREIGN_SPANS',
      `nemo-lens: spans of other instrumentation (first: scope "${scope}", span "${(span as Partial<ReadableSpan>).name ?? ''}") are exported by nemo-lens to ${this.target()}, ` +
        "because nemo-lens's tracer provider was registered globally first; a host SDK started afterwards (NodeSDK.start()) cannot register its own. " +
        'If the application has its own SDK, start it before setupTelemetry: nemo-lens then sends its spans through it. ' +
        "If nemo-lens is meant to be this process's SDK, pass { foreignSpans: 'export' } to setupTelemetry to silence this.",
    );
  }

  onEnd(_span: ReadableSpan): void {}

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {}
}
