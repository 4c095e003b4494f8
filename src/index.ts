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
// The `/** @function */`-style tags tell TypeDoc (npm run docs:api) to document each const by
// what it holds: a const typed `typeof span.managedSpan` would otherwise read as a variable.
import * as attributes from './attributes';
import * as errors from './errors';
import * as gate from './gate';
import { bundleNotice, incompatibleCopies, shared } from './global';
import * as registry from './registry';
import * as span from './span';
import * as config from './telemetry/config';
import * as lazy from './telemetry/lazy';
import * as propagation from './telemetry/propagation';
import * as resourceEncoding from './telemetry/resource-encoding';
import { VERSION } from './version';
import * as warnings from './warnings';

/** @class */
export const NemoLensError = errors.NemoLensError;
export type NemoLensError = errors.NemoLensError;
/** @class */
export const NemoLensTypeError = errors.NemoLensTypeError;
export type NemoLensTypeError = errors.NemoLensTypeError;
export type { NemoLensErrorCode } from './errors';

/** @function */
export const isSpanGroupEnabled = gate.isSpanGroupEnabled;
/** @function */
export const spanGroup = gate.spanGroup;
export type { SpanGroup, SpanGroupLike } from './gate';

/** @namespace */
export const SpanRegistry = registry.SpanRegistry;
/** @function */
export const enabledSpanGroups = registry.enabledSpanGroups;
/** @function */
export const pendingSpanGroups = registry.pendingSpanGroups;
/** @function */
export const setEnabledSpanGroups = registry.setEnabledSpanGroups;
/** @function */
export const setSpanGroupSpec = registry.setSpanGroupSpec;
export type { GateHandles, Names, NamesOf, Presets, RegisterOptions, Resolved } from './registry';

export const SPAN_GROUP_ATTRIBUTE = span.SPAN_GROUP_ATTRIBUTE;
/** @function */
export const managedSpan = span.managedSpan;
/** @function */
export const spanCm = span.spanCm;
/** @function */
export const traceFn = span.traceFn;
export type { ManagedSpanOptions, TraceFnDecorator } from './span';

export const DEFAULT_REDACT_KEYS = attributes.DEFAULT_REDACT_KEYS;
export const REDACTED = attributes.REDACTED;
/** @function */
export const redactValue = attributes.redactValue;
/** @function */
export const safeSetSpanAttributes = attributes.safeSetSpanAttributes;

/** @function */
export const onWarning = warnings.onWarning;
export type { NemoLensWarning, WarningListener } from './warnings';

/** @class */
export const NemoLensConfig = config.NemoLensConfig;
export type NemoLensConfig = config.NemoLensConfig;
export type { ExporterName, FromEnvOptions, NemoLensConfigOptions } from './telemetry/config';

/** @function */
export const setupTelemetry = lazy.setupTelemetry;
export type { TelemetryHandle, TelemetryOptions } from './telemetry/setup';
export type { ForeignSpans, PipelineName } from './telemetry/host-sdk';
export type { ResourceAttributesInput } from './telemetry/resource';

/** @function */
export const contextFromEnv = propagation.contextFromEnv;
/** @function */
export const envWithTraceContext = propagation.envWithTraceContext;
/** @function */
export const extractContext = propagation.extractContext;
/** @function */
export const injectContext = propagation.injectContext;
export type { CarrierFormat, EnvWithTraceContextOptions, ExtractOptions, InjectOptions } from './telemetry/propagation';

/** @function */
export const encodeResourceAttributes = resourceEncoding.encodeResourceAttributes;
export type { EncodableAttributes, EncodableValue } from './telemetry/resource-encoding';

export type { BackendName } from './backends/select';

/** Which core this realm runs: the Rust core (`native`) or the TypeScript twin (`js`). */
/** @function */
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

if (bundleNotice !== undefined) warnings.emitWarning('NEMO_LENS_NATIVE_NOT_BUNDLED', bundleNotice);

/**
 * The default export: every runtime export in one object, as `@opentelemetry/api` offers
 * (`import lens from 'nemo-lens'`, or `require('nemo-lens').default`). Its type is this module's
 * own, less `default`: leaving an export out of it fails to compile.
 */
const lens: Omit<typeof import('./index'), 'default'> = {
  NemoLensError,
  NemoLensTypeError,
  isSpanGroupEnabled,
  spanGroup,
  SpanRegistry,
  enabledSpanGroups,
  pendingSpanGroups,
  setEnabledSpanGroups,
  setSpanGroupSpec,
  SPAN_GROUP_ATTRIBUTE,
  managedSpan,
  spanCm,
  traceFn,
  DEFAULT_REDACT_KEYS,
  REDACTED,
  redactValue,
  safeSetSpanAttributes,
  onWarning,
  NemoLensConfig,
  setupTelemetry,
  contextFromEnv,
  envWithTraceContext,
  extractContext,
  injectContext,
  encodeResourceAttributes,
  backend,
  nativeLoadError,
  version,
};
export default lens;
