/**
 * Helpers for tests of code that uses nemo-lens:
 *   - `resetTelemetry()` returns this realm to a fresh state: the active setup (if any) shut
 *     down, empty registry, no spec, nothing pinned, setup flag off;
 *   - `setupTestTelemetry()` is an enabled setup that records every span in memory, each
 *     visible as soon as it ends (no batching), for assertions.
 */
import type { Attributes } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { syncGates } from './gate';
import { shared } from './global';
import type { NemoLensConfigOptions } from './telemetry/config';
import { activeTelemetry, installTelemetry, type TelemetryHandle } from './telemetry/setup';

/**
 * Back to a fresh state. The reset itself is synchronous; the returned promise (which never
 * rejects) settles when the previous setup has finished flushing, for tests that care.
 */
export function resetTelemetry(): Promise<void> {
  const active = activeTelemetry();
  const stopped = active === undefined ? Promise.resolve() : active.handle.shutdown().catch(() => undefined);
  shared.telemetry = undefined;
  shared.core.reset();
  syncGates();
  return stopped;
}

export interface TestTelemetryOptions {
  /** The span-group spec; default `"all"`. */
  readonly spanGroups?: string;
  /** Other config fields (`enabled` is always true). */
  readonly config?: Omit<NemoLensConfigOptions, 'enabled' | 'spanGroups'>;
  readonly resourceAttributes?: Attributes;
}

export interface TestTelemetry {
  readonly handle: TelemetryHandle;
  readonly exporter: InMemorySpanExporter;
  /** Spans ended so far, in the order they ended. */
  spans(): ReadableSpan[];
}

/** The SDK's in-memory exporter forgets its spans at shutdown; tests usually assert after it. */
class KeepingInMemorySpanExporter extends InMemorySpanExporter {
  override shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * An enabled setup (replacing any active one) whose spans land in memory as they end; they
 * stay readable after `handle.shutdown()`. `TRACEPARENT` and `OTEL_SDK_DISABLED` in the environment
 * are ignored, and so is a host SDK registered before: nemo-lens spans are recorded here all the same.
 */
export function setupTestTelemetry(options: TestTelemetryOptions = {}): TestTelemetry {
  const exporter = new KeepingInMemorySpanExporter();
  const handle = installTelemetry(
    { ...options.config, enabled: true, spanGroups: options.spanGroups ?? 'all' },
    { spanExporter: exporter, allowReinit: true, continueTraceFromEnv: false, resourceAttributes: options.resourceAttributes },
    { processor: 'simple', testSetup: true },
  );
  return { handle, exporter, spans: () => exporter.getFinishedSpans() };
}

/**
 * The default export: every runtime export in one object, as `@opentelemetry/api` offers
 * (`import lens from 'nemo-lens/testing'`, or `require('nemo-lens/testing').default`). Its type is this module's
 * own, less `default`: leaving an export out of it fails to compile.
 */
const lens: Omit<typeof import('./testing'), 'default'> = {
  resetTelemetry,
  setupTestTelemetry,
};
export default lens;
