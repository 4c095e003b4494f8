/**
 * The standard `OTEL_*` variables, read the way the OpenTelemetry SDKs read them.
 *
 * A host that already configures OpenTelemetry with these variables should not have to learn
 * a second set for nemo-lens. This module only *parses* (no SDK object is built here, so
 * config.ts can use it at import time without loading the SDK); options.ts builds samplers,
 * propagators, detectors and the diag logger from what it returns.
 *
 * Values are shared with every other OpenTelemetry SDK in the process, so a value nemo-lens
 * does not know (`OTEL_PROPAGATORS=b3`, a contrib resource detector) is not an error here, as
 * it is not in the SDKs: it warns `NEMO_LENS_OTEL_ENV_UNSUPPORTED` (once per variable and
 * value) and is skipped. Only nemo-lens's own `NEMO_LENS_*` variables throw on a bad value.
 * Precedence: a `NEMO_LENS_*` variable or an explicit config/option beats the `OTEL_*` one.
 */
import { emitWarning } from '../warnings';
import type { ExporterName } from './config';

export type Env = Readonly<Record<string, string | undefined>>;

const reported = new Set<string>();

function unsupported(variable: string, value: string, what: string): void {
  const key = `${variable}=${value}`;
  if (reported.has(key)) return;
  reported.add(key);
  emitWarning('NEMO_LENS_OTEL_ENV_UNSUPPORTED', `nemo-lens: ${variable}=${JSON.stringify(value)}: ${what}`);
}

/** Forget which values were reported (tests). */
export function resetOtelEnvReports(): void {
  reported.clear();
}

function text(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined) return undefined;
  const value = raw.trim();
  return value === '' ? undefined : value;
}

/** A comma-separated list, trimmed and lower-cased, empty items dropped; undefined when unset or blank. */
function list(env: Env, name: string): string[] | undefined {
  const value = text(env, name);
  if (value === undefined) return undefined;
  const items = value.split(',').map((item) => item.trim().toLowerCase()).filter((item) => item !== '');
  return items.length === 0 ? undefined : items;
}

function number(env: Env, name: string, check: (value: number) => boolean = (value) => value >= 0): number | undefined {
  const value = text(env, name);
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (Number.isNaN(parsed) || !check(parsed)) {
    unsupported(name, value, 'not a usable number; the default applies.');
    return undefined;
  }
  return parsed;
}

/** `OTEL_SDK_DISABLED=true` (any case, as the spec says: only "true" disables). */
export function sdkDisabled(env: Env = process.env): boolean {
  return text(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true';
}

const EXPORTERS: readonly ExporterName[] = ['otlp', 'console', 'none'];

/**
 * `OTEL_TRACES_EXPORTER`: `otlp`, `console` or `none` (nemo-lens exports to one place; with a
 * list, `none` anywhere means none, else the first supported name wins and the rest warn).
 */
export function tracesExporterFromEnv(env: Env = process.env): ExporterName | undefined {
  const names = list(env, 'OTEL_TRACES_EXPORTER');
  if (names === undefined) return undefined;
  if (names.includes('none')) return 'none';
  const supported = names.filter((name) => (EXPORTERS as readonly string[]).includes(name)) as ExporterName[];
  const rest = names.filter((name) => name !== supported[0]);
  if (rest.length > 0) {
    unsupported(
      'OTEL_TRACES_EXPORTER',
      names.join(','),
      `nemo-lens exports to one of ${EXPORTERS.join(', ')}; ${supported[0] === undefined ? 'none of these is one, so otlp is used' : `using ${supported[0]}, ignoring ${rest.join(', ')}`}. ` +
        'Pass your own exporter with setupTelemetry(config, { spanExporter }) or extra ones with { spanProcessors }.',
    );
  }
  return supported[0] ?? 'otlp';
}

export type PropagatorName = 'tracecontext' | 'baggage';

/** `OTEL_PROPAGATORS` (default `tracecontext,baggage`; `none` registers none). */
export function propagatorsFromEnv(env: Env = process.env): PropagatorName[] {
  const names = list(env, 'OTEL_PROPAGATORS');
  if (names === undefined) return ['tracecontext', 'baggage'];
  if (names.includes('none')) return [];
  const known = names.filter((name): name is PropagatorName => name === 'tracecontext' || name === 'baggage');
  const other = names.filter((name) => name !== 'tracecontext' && name !== 'baggage');
  if (other.length > 0) {
    unsupported(
      'OTEL_PROPAGATORS',
      names.join(','),
      `nemo-lens ships tracecontext and baggage; ${other.join(', ')} skipped. Register another propagator with propagation.setGlobalPropagator before setupTelemetry (or in your host SDK).`,
    );
  }
  return [...new Set(known)];
}

export const LOG_LEVELS = ['none', 'error', 'warn', 'info', 'debug', 'verbose', 'all'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

/** `OTEL_LOG_LEVEL` (any case); undefined when unset, or unknown (warned). */
export function logLevelFromEnv(env: Env = process.env): LogLevelName | undefined {
  const value = text(env, 'OTEL_LOG_LEVEL');
  if (value === undefined) return undefined;
  const level = value.toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(level)) return level as LogLevelName;
  unsupported('OTEL_LOG_LEVEL', value, `use one of ${LOG_LEVELS.map((name) => name.toUpperCase()).join(', ')}; no diag logger is installed.`);
  return undefined;
}

/** What `@opentelemetry/resources` ships, under the names sdk-node 0.2xx and 0.3xx accept. */
export type DetectorName = 'host' | 'os' | 'process' | 'serviceinstance';

/**
 * `OTEL_NODE_RESOURCE_DETECTORS`: undefined when unset (nemo-lens's own resource: host.name,
 * process.pid, OTEL_RESOURCE_ATTRIBUTES); `all`; `none`; or a list of `host`, `os`,
 * `process`, `serviceinstance` (`service` as sdk-node 0.3xx spells it; `env` is always read).
 */
export function resourceDetectorsFromEnv(env: Env = process.env): DetectorName[] | undefined {
  const names = list(env, 'OTEL_NODE_RESOURCE_DETECTORS');
  if (names === undefined) return undefined;
  if (names.includes('none')) return [];
  if (names.includes('all')) return ['host', 'os', 'process', 'serviceinstance'];
  const detectors = new Set<DetectorName>();
  const other: string[] = [];
  for (const name of names) {
    if (name === 'host' || name === 'os' || name === 'process' || name === 'serviceinstance') detectors.add(name);
    else if (name === 'service') detectors.add('serviceinstance');
    else if (name !== 'env') other.push(name);
  }
  if (other.length > 0) {
    unsupported(
      'OTEL_NODE_RESOURCE_DETECTORS',
      names.join(','),
      `nemo-lens runs the detectors @opentelemetry/resources ships (env, host, os, process, serviceinstance); ${other.join(', ')} skipped. ` +
        'Pass a detected resource with setupTelemetry(config, { resource }) for others.',
    );
  }
  return [...detectors];
}

export type SamplerSpec =
  | { readonly name: 'always_on' | 'always_off' | 'parentbased_always_on' | 'parentbased_always_off' }
  | { readonly name: 'traceidratio' | 'parentbased_traceidratio'; readonly ratio: number };

const SAMPLERS = ['always_on', 'always_off', 'parentbased_always_on', 'parentbased_always_off', 'traceidratio', 'parentbased_traceidratio'];

/** `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG`; undefined for the SDK default (parentbased_always_on). */
export function samplerFromEnv(env: Env = process.env): SamplerSpec | undefined {
  const value = text(env, 'OTEL_TRACES_SAMPLER');
  if (value === undefined) return undefined;
  const name = value.toLowerCase();
  if (!SAMPLERS.includes(name)) {
    unsupported('OTEL_TRACES_SAMPLER', value, `use one of ${SAMPLERS.join(', ')}; parentbased_always_on applies.`);
    return undefined;
  }
  if (name === 'traceidratio' || name === 'parentbased_traceidratio') {
    return { name, ratio: number(env, 'OTEL_TRACES_SAMPLER_ARG', (ratio) => ratio >= 0 && ratio <= 1) ?? 1 };
  }
  return { name } as SamplerSpec;
}

export interface SpanLimitsFromEnv {
  attributeValueLengthLimit?: number;
  attributeCountLimit?: number;
  eventCountLimit?: number;
  linkCountLimit?: number;
  attributePerEventCountLimit?: number;
  attributePerLinkCountLimit?: number;
}

/** The span limit variables (span-specific first, then the general attribute ones), as sdk-trace-base reads them. */
export function spanLimitsFromEnv(env: Env = process.env): SpanLimitsFromEnv {
  const limits: SpanLimitsFromEnv = {};
  const set = (key: keyof SpanLimitsFromEnv, ...names: string[]): void => {
    for (const name of names) {
      const value = number(env, name);
      if (value !== undefined) {
        limits[key] = value;
        return;
      }
    }
  };
  set('attributeValueLengthLimit', 'OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT', 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT');
  set('attributeCountLimit', 'OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT', 'OTEL_ATTRIBUTE_COUNT_LIMIT');
  set('eventCountLimit', 'OTEL_SPAN_EVENT_COUNT_LIMIT');
  set('linkCountLimit', 'OTEL_SPAN_LINK_COUNT_LIMIT');
  set('attributePerEventCountLimit', 'OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT', 'OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT');
  set('attributePerLinkCountLimit', 'OTEL_SPAN_ATTRIBUTE_PER_LINK_COUNT_LIMIT', 'OTEL_LINK_ATTRIBUTE_COUNT_LIMIT');
  return limits;
}

export interface BatchLimits {
  readonly maxQueueSize: number;
  readonly maxExportBatchSize: number;
  readonly scheduledDelayMillis: number;
  readonly exportTimeoutMillis: number;
}

/** `OTEL_BSP_*`, else the SDK's defaults (2048, 512, 5000 ms, 30000 ms); the batch never exceeds the queue. */
export function batchLimitsFromEnv(env: Env = process.env): BatchLimits {
  const positive = (value: number): boolean => value > 0;
  const maxQueueSize = number(env, 'OTEL_BSP_MAX_QUEUE_SIZE', positive) ?? 2048;
  return {
    maxQueueSize,
    maxExportBatchSize: Math.min(number(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', positive) ?? 512, maxQueueSize),
    scheduledDelayMillis: number(env, 'OTEL_BSP_SCHEDULE_DELAY') ?? 5000,
    exportTimeoutMillis: number(env, 'OTEL_BSP_EXPORT_TIMEOUT') ?? 30000,
  };
}
