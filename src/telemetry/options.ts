/**
 * The OpenTelemetry hooks of a setup: the `sampler`, `spanProcessors` and `resource` options,
 * and the SDK objects the `OTEL_*` variables ask for (otel-env.ts parses them).
 *
 * An option beats its variable: `{ sampler }` beats `OTEL_TRACES_SAMPLER`, as in the SDKs.
 * The options are checked with the others, before anything is built (setup.ts, step 1): an
 * object that only looks like a sampler fails at setup with a message, not at the first span.
 * Everything here loads on the first setup only (setup.ts is itself loaded lazily).
 */
import { DiagLogLevel, diag, propagation, type DiagLogger, type TextMapPropagator } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import * as resources from '@opentelemetry/resources';
import type { Resource, ResourceDetector } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanLimits,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { NemoLensTypeError, describe } from '../errors';
import { emitWarning } from '../warnings';
import {
  logLevelFromEnv,
  propagatorsFromEnv,
  resourceDetectorsFromEnv,
  samplerFromEnv,
  spanLimitsFromEnv,
  type DetectorName,
  type Env,
  type LogLevelName,
  type SamplerSpec,
} from './otel-env';

/** The options of this module, as `setupTelemetry(config, options)` takes them. */
export interface OtelHookOptions {
  /** Decides which spans are recorded; default `OTEL_TRACES_SAMPLER`, else parent-based always-on. */
  readonly sampler?: Sampler;
  /** More span processors, after nemo-lens's own (which export to the configured exporter). */
  readonly spanProcessors?: readonly SpanProcessor[];
  /** A resource merged over the one nemo-lens builds (its attributes win). */
  readonly resource?: Resource;
}

export const OTEL_HOOK_KEYS = ['sampler', 'spanProcessors', 'resource'] as const;

function hasMethods(value: unknown, names: readonly string[]): boolean {
  return value !== null && typeof value === 'object' && names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');
}

/** Throws a coded TypeError for an option that is not what the SDK would accept. */
export function checkOtelHookOptions(options: OtelHookOptions): void {
  if (options.sampler !== undefined && !hasMethods(options.sampler, ['shouldSample'])) {
    throw new NemoLensTypeError(
      `nemo-lens: setupTelemetry option sampler must be an OpenTelemetry Sampler (with shouldSample), got ${describe(options.sampler)}.`,
    );
  }
  if (options.spanProcessors !== undefined) {
    if (!Array.isArray(options.spanProcessors)) {
      throw new NemoLensTypeError(`nemo-lens: setupTelemetry option spanProcessors must be an array of SpanProcessor, got ${describe(options.spanProcessors)}.`);
    }
    options.spanProcessors.forEach((processor: unknown, index) => {
      if (!hasMethods(processor, ['onStart', 'onEnd', 'forceFlush', 'shutdown'])) {
        throw new NemoLensTypeError(
          `nemo-lens: setupTelemetry option spanProcessors[${index}] must be an OpenTelemetry SpanProcessor (onStart, onEnd, forceFlush, shutdown), got ${describe(processor)}.`,
        );
      }
    });
  }
  const resource = options.resource as Partial<Resource> | undefined;
  if (resource !== undefined && (!hasMethods(resource, ['merge']) || resource.attributes === null || typeof resource.attributes !== 'object')) {
    throw new NemoLensTypeError(
      `nemo-lens: setupTelemetry option resource must be an OpenTelemetry Resource (e.g. resourceFromAttributes({...}) from @opentelemetry/resources), got ${describe(resource)}.`,
    );
  }
}

/** The option's sampler, else `OTEL_TRACES_SAMPLER`'s, else undefined (the SDK default). */
export function chooseSampler(options: OtelHookOptions, env: Env = process.env): Sampler | undefined {
  return options.sampler ?? buildSampler(samplerFromEnv(env));
}

function buildSampler(spec: SamplerSpec | undefined): Sampler | undefined {
  if (spec === undefined) return undefined;
  switch (spec.name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(spec.ratio);
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(spec.ratio) });
  }
}

export function spanLimits(env: Env = process.env): SpanLimits {
  return spanLimitsFromEnv(env);
}

/** The global propagator `OTEL_PROPAGATORS` asks for; undefined for `none`. */
export function buildPropagator(env: Env = process.env): TextMapPropagator | undefined {
  const names = propagatorsFromEnv(env);
  if (names.length === 0) return undefined;
  const propagators = names.map((name) => (name === 'tracecontext' ? new W3CTraceContextPropagator() : new W3CBaggagePropagator()));
  return new CompositePropagator({ propagators });
}

/** Looked up when used: a host's older @opentelemetry/resources 2.x may lack one (then it is skipped, with a word). */
const DETECTOR_EXPORTS: Readonly<Record<DetectorName, string>> = {
  host: 'hostDetector',
  os: 'osDetector',
  process: 'processDetector',
  serviceinstance: 'serviceInstanceIdDetector',
};

/**
 * The resource the `OTEL_NODE_RESOURCE_DETECTORS` detectors find (undefined when unset);
 * nemo-lens's own resource (env, config, rank) is merged over it.
 */
export function detectedResource(env: Env = process.env): Resource | undefined {
  const names = resourceDetectorsFromEnv(env);
  if (names === undefined || names.length === 0) return undefined;
  const available = resources as unknown as Record<string, ResourceDetector | undefined>;
  const detectors: ResourceDetector[] = [];
  for (const name of names) {
    const detector = available[DETECTOR_EXPORTS[name]];
    if (detector === undefined) missingDetector(name);
    else detectors.push(detector);
  }
  return detectors.length === 0 ? undefined : resources.detectResources({ detectors });
}

function missingDetector(name: DetectorName): void {
  emitWarning(
    'NEMO_LENS_OTEL_ENV_UNSUPPORTED',
    `nemo-lens: OTEL_NODE_RESOURCE_DETECTORS names "${name}", but the installed @opentelemetry/resources has no ${DETECTOR_EXPORTS[name]}; it is skipped. Update @opentelemetry/resources.`,
  );
}

/** `own` over `detected`, then the `resource` option over both. */
export function composeResource(own: Resource, detected: Resource | undefined, option: Resource | undefined): Resource {
  const base = detected === undefined ? own : detected.merge(own);
  return option === undefined ? base : base.merge(option);
}

const LEVELS: Readonly<Record<LogLevelName, DiagLogLevel>> = {
  none: DiagLogLevel.NONE,
  error: DiagLogLevel.ERROR,
  warn: DiagLogLevel.WARN,
  info: DiagLogLevel.INFO,
  debug: DiagLogLevel.DEBUG,
  verbose: DiagLogLevel.VERBOSE,
  all: DiagLogLevel.ALL,
};

/**
 * Every level to stderr: the SDK's DiagConsoleLogger sends info and debug to `console.info`
 * and `console.debug`, that is stdout, where they would mix with a program's output (and with
 * the console exporter's JSON lines).
 */
function stderrLogger(): DiagLogger {
  const write =
    (level: string) =>
    (message: string, ...args: unknown[]): void => {
      const rest = args.map((arg) => (typeof arg === 'string' ? arg : safeInspect(arg))).join(' ');
      process.stderr.write(`otel ${level}: ${message}${rest === '' ? '' : ` ${rest}`}\n`);
    };
  return { error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug'), verbose: write('verbose') };
}

function safeInspect(value: unknown): string {
  try {
    return value instanceof Error ? (value.stack ?? value.message) : JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

const DIAG_KEY = Symbol.for('opentelemetry.js.api.1');

/**
 * `OTEL_LOG_LEVEL`: OpenTelemetry's diag logger to stderr at that level, unless the host
 * registered a diag logger already (its choice stands). Returns how to take it back
 * (only if it is still ours), or undefined when nothing was installed.
 */
export function installDiagLogger(env: Env = process.env): (() => void) | undefined {
  const level = logLevelFromEnv(env);
  if (level === undefined) return undefined;
  const globals = (globalThis as Record<symbol, { diag?: unknown } | undefined>)[DIAG_KEY];
  if (globals?.diag !== undefined) return undefined;
  diag.setLogger(stderrLogger(), { logLevel: LEVELS[level], suppressOverrideMessage: true });
  const installed = (globalThis as Record<symbol, { diag?: unknown } | undefined>)[DIAG_KEY]?.diag;
  return () => {
    if ((globalThis as Record<symbol, { diag?: unknown } | undefined>)[DIAG_KEY]?.diag === installed) diag.disable();
  };
}

/** Registers `propagator` globally; true when the API took it (false: another is registered). */
export function registerPropagator(propagator: TextMapPropagator | undefined): boolean {
  return propagator === undefined ? false : propagation.setGlobalPropagator(propagator);
}
