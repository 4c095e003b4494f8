/**
 * nemo-lens: span groups for OpenTelemetry.
 *
 * Libraries register the span groups they emit (`SpanRegistry.register`); users choose what
 * is emitted with one spec (`NEMO_LENS_SPAN_GROUPS=per_step,layer`); instrumentation sites ask
 * a gate (`isSpanGroupEnabled`, `spanGroup(name).enabled`) that costs next to nothing when off.
 *
 * Every runtime export below is a `const`, never `export { x } from`: tsc compiles a
 * re-export to a getter, and getters leave the CommonJS `exports` object in dictionary mode,
 * where V8 calls the getter on every `nemo.managedSpan(...)` (about 8 ns a call; that is how
 * TypeScript compiled to CommonJS calls an import). Plain data properties keep it fast.
 * `__test__/exports.spec.ts` holds this in place.
 */
import * as attributes from './attributes';
import * as errors from './errors';
import * as gate from './gate';
import { incompatibleCopies, shared } from './global';
import * as registry from './registry';
import * as span from './span';
import * as config from './telemetry/config';
import * as lazy from './telemetry/lazy';
import * as propagation from './telemetry/propagation';
import * as resourceEncoding from './telemetry/resource-encoding';
import { VERSION } from './version';
import * as warnings from './warnings';

export const NemoLensError = errors.NemoLensError;
export type NemoLensError = errors.NemoLensError;
export const NemoLensTypeError = errors.NemoLensTypeError;
export type NemoLensTypeError = errors.NemoLensTypeError;
export type { NemoLensErrorCode } from './errors';

export const isSpanGroupEnabled = gate.isSpanGroupEnabled;
export const spanGroup = gate.spanGroup;
export type { SpanGroup, SpanGroupLike } from './gate';

export const SpanRegistry = registry.SpanRegistry;
export const enabledSpanGroups = registry.enabledSpanGroups;
export const pendingSpanGroups = registry.pendingSpanGroups;
export const setEnabledSpanGroups = registry.setEnabledSpanGroups;
export const setSpanGroupSpec = registry.setSpanGroupSpec;
export type { GateHandles, Names, NamesOf, Presets, RegisterOptions, Resolved } from './registry';

export const SPAN_GROUP_ATTRIBUTE = span.SPAN_GROUP_ATTRIBUTE;
export const managedSpan = span.managedSpan;
export const spanCm = span.spanCm;
export const traceFn = span.traceFn;
export type { ManagedSpanOptions, TraceFnDecorator } from './span';

export const DEFAULT_REDACT_KEYS = attributes.DEFAULT_REDACT_KEYS;
export const REDACTED = attributes.REDACTED;
export const redactValue = attributes.redactValue;
export const safeSetSpanAttributes = attributes.safeSetSpanAttributes;

export const onWarning = warnings.onWarning;
export type { NemoLensWarning, WarningListener } from './warnings';

export const NemoLensConfig = config.NemoLensConfig;
export type NemoLensConfig = config.NemoLensConfig;
export type { ExporterName, FromEnvOptions, NemoLensConfigOptions } from './telemetry/config';

export const setupTelemetry = lazy.setupTelemetry;
export type { TelemetryHandle, TelemetryOptions } from './telemetry/setup';
export type { ForeignSpans, PipelineName } from './telemetry/host-sdk';
export type { ResourceAttributesInput } from './telemetry/resource';

export const contextFromEnv = propagation.contextFromEnv;
export const envWithTraceContext = propagation.envWithTraceContext;
export const extractContext = propagation.extractContext;
export const injectContext = propagation.injectContext;
export type { CarrierFormat, EnvWithTraceContextOptions, ExtractOptions, InjectOptions } from './telemetry/propagation';

export const encodeResourceAttributes = resourceEncoding.encodeResourceAttributes;
export type { EncodableAttributes, EncodableValue } from './telemetry/resource-encoding';

export type { BackendName } from './backends/select';

/** Which core this realm runs: the Rust core (`native`) or the TypeScript twin (`js`). */
export const backend = shared.backend;

/** Why the native core did not load, when `backend` is `js` by fallback. */
export const nativeLoadError: Error | undefined = shared.nativeLoadError;

export const version = VERSION;

if (incompatibleCopies.length > 0) {
  warnings.emitWarning(
    'NEMO_LENS_INCOMPATIBLE_COPY',
    `nemo-lens: this realm also loaded nemo-lens ${incompatibleCopies.join(', ')}, whose state this copy (${VERSION}) cannot share; ` +
      'each keeps its own span-group registry, so groups registered through one are unknown to the other. Deduplicate with `npm dedupe` or align the versions.',
  );
}
