/**
 * nemo-lens: span groups for OpenTelemetry.
 *
 * Libraries register the span groups they emit (`SpanRegistry.register`); users choose what
 * is emitted with one spec (`NEMO_LENS_SPAN_GROUPS=per_step,layer`); instrumentation sites ask
 * a gate (`isSpanGroupEnabled`, `spanGroup(name).enabled`) that costs next to nothing when off.
 */
import { incompatibleCopies, shared } from './global';
import { VERSION } from './version';
import { emitWarning } from './warnings';

export { NemoLensError, NemoLensTypeError, type NemoLensErrorCode } from './errors';
export { isSpanGroupEnabled, spanGroup, type SpanGroup, type SpanGroupLike } from './gate';
export {
  SpanRegistry,
  enabledSpanGroups,
  pendingSpanGroups,
  setEnabledSpanGroups,
  setSpanGroupSpec,
  type Presets,
  type RegisterOptions,
  type Resolved,
} from './registry';
export {
  SPAN_GROUP_ATTRIBUTE,
  managedSpan,
  spanCm,
  traceFn,
  type ManagedSpanOptions,
  type TraceFnDecorator,
} from './span';
export { DEFAULT_REDACT_KEYS, REDACTED, redactValue, safeSetSpanAttributes } from './attributes';
export { onWarning, type NemoLensWarning, type WarningListener } from './warnings';
export {
  NemoLensConfig,
  type ExporterName,
  type FromEnvOptions,
  type NemoLensConfigOptions,
} from './telemetry/config';
export { setupTelemetry } from './telemetry/lazy';
export type { TelemetryHandle, TelemetryOptions } from './telemetry/setup';
export type { ResourceAttributesInput } from './telemetry/resource';
export {
  contextFromEnv,
  envWithTraceContext,
  extractContext,
  injectContext,
  type CarrierFormat,
  type ExtractOptions,
  type InjectOptions,
} from './telemetry/propagation';
export type { BackendName } from './backends/select';

/** Which core this realm runs: the Rust core (`native`) or the TypeScript twin (`js`). */
export const backend = shared.backend;

/** Why the native core did not load, when `backend` is `js` by fallback. */
export const nativeLoadError: Error | undefined = shared.nativeLoadError;

export const version = VERSION;

if (incompatibleCopies.length > 0) {
  emitWarning(
    'NEMO_LENS_INCOMPATIBLE_COPY',
    `nemo-lens: this realm also loaded nemo-lens ${incompatibleCopies.join(', ')}, whose state this copy (${VERSION}) cannot share; ` +
      'each keeps its own span-group registry, so groups registered through one are unknown to the other. Deduplicate with `npm dedupe` or align the versions.',
  );
}
