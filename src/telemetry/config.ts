/**
 * `NemoLensConfig`: what `setupTelemetry` builds, from code or from the environment.
 *
 * The constructor validates types and values (a wrong type is a TypeError, a bad value a
 * `ERR_NEMO_LENS_INVALID_CONFIG`), so a config that exists is a config that can be set up.
 * `fromEnv` reads `<P>_*` variables with an optional fallback prefix, so a Node process and
 * a Python process of one job can share one set of variables (and old names keep working).
 */
import { NemoLensError, NemoLensTypeError, describe } from '../errors';
import { isBlank, stripWhitespace } from '../whitespace';
import { tracesExporterFromEnv } from './otel-env';

export const EXPORTER_NAMES = ['otlp', 'console', 'none'] as const;
export type ExporterName = (typeof EXPORTER_NAMES)[number];

export interface NemoLensConfigOptions {
  /** Emit anything at all. Default false: a process stays dark unless asked. */
  readonly enabled?: boolean;
  /** The span-group spec, e.g. `"default"`, `"per_step,layer"`, `"all"`. Default `"default"`. */
  readonly spanGroups?: string;
  /** Where spans go: `"otlp"` (default), `"console"` (JSON lines on stdout) or `"none"`. */
  readonly exporter?: ExporterName;
  /** Install a tracer provider. Default true; false leaves tracing to the host (see setupTelemetry). */
  readonly tracesEnabled?: boolean;
  /** Resource `nemo.run.id`; default `SLURM_JOB_ID`, else a random id, chosen at setup. */
  readonly runId?: string;
  /** Resource `nemo.user.id`. */
  readonly userId?: string;
  /** Resource `service.name`. Default `"nemo"`. */
  readonly serviceName?: string;
}

export interface FromEnvOptions {
  /** Variable prefix; default `"NEMO_LENS"` (reads `NEMO_LENS_ENABLED`, ...). */
  readonly prefix?: string;
  /** Read `<fallbackPrefix>_X` when `<prefix>_X` is unset or blank. */
  readonly fallbackPrefix?: string;
  /** Where to read from; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

const DEFAULTS = {
  enabled: false,
  spanGroups: 'default',
  exporter: 'otlp' as ExporterName,
  tracesEnabled: true,
  serviceName: 'nemo',
};

const OPTION_KEYS: ReadonlySet<string> = new Set([
  'enabled',
  'spanGroups',
  'exporter',
  'tracesEnabled',
  'runId',
  'userId',
  'serviceName',
]);

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);
const BOOLEAN_WORDS = '1/0, true/false, yes/no or on/off (any case)';

function invalid(message: string): NemoLensError {
  return new NemoLensError('ERR_NEMO_LENS_INVALID_CONFIG', `nemo-lens: ${message}`);
}

function checkBoolean(value: unknown, key: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') {
    throw new NemoLensTypeError(
      `nemo-lens: config.${key} must be a boolean, got ${describe(value)}; to parse strings such as "yes", use NemoLensConfig.fromEnv.`,
    );
  }
  return value;
}

function checkString(value: unknown, key: string, options: { allowEmpty: boolean }): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new NemoLensTypeError(`nemo-lens: config.${key} must be a string, got ${describe(value)}.`);
  if (!value.isWellFormed()) {
    throw new NemoLensTypeError(`nemo-lens: config.${key} ${describe(value)} contains a lone surrogate; pass well-formed Unicode.`);
  }
  if (!options.allowEmpty && isBlank(value)) {
    throw invalid(`config.${key} must not be empty or blank, got ${describe(value)}; omit it to use the default.`);
  }
  return value;
}

function checkExporter(value: unknown, where: string): ExporterName {
  if ((EXPORTER_NAMES as readonly unknown[]).includes(value)) return value as ExporterName;
  if (value !== undefined && typeof value !== 'string') {
    throw new NemoLensTypeError(`nemo-lens: ${where} must be one of ${EXPORTER_NAMES.join(', ')}, got ${describe(value)}.`);
  }
  throw invalid(
    `${where} ${describe(value)} is not an exporter; use one of ${EXPORTER_NAMES.map((name) => `"${name}"`).join(', ')} ` +
      '(or pass your own with setupTelemetry(config, { spanExporter })).',
  );
}

export class NemoLensConfig {
  readonly enabled: boolean;
  readonly spanGroups: string;
  readonly exporter: ExporterName;
  readonly tracesEnabled: boolean;
  readonly runId: string | undefined;
  readonly userId: string | undefined;
  readonly serviceName: string;

  constructor(options: NemoLensConfigOptions = {}) {
    if (options === null || typeof options !== 'object') {
      throw new NemoLensTypeError(`nemo-lens: NemoLensConfig needs an options object, got ${describe(options)}.`);
    }
    // A misspelt key (`spanGroup`) would otherwise silently fall back to its default.
    for (const key of Object.keys(options)) {
      if (!OPTION_KEYS.has(key)) {
        throw invalid(`unknown config key ${describe(key)}; the keys are ${[...OPTION_KEYS].join(', ')}.`);
      }
    }
    this.enabled = checkBoolean(options.enabled, 'enabled', DEFAULTS.enabled);
    this.spanGroups = checkString(options.spanGroups, 'spanGroups', { allowEmpty: true }) ?? DEFAULTS.spanGroups;
    this.exporter = options.exporter === undefined ? DEFAULTS.exporter : checkExporter(options.exporter, 'config.exporter');
    this.tracesEnabled = checkBoolean(options.tracesEnabled, 'tracesEnabled', DEFAULTS.tracesEnabled);
    this.runId = checkString(options.runId, 'runId', { allowEmpty: false });
    this.userId = checkString(options.userId, 'userId', { allowEmpty: false });
    this.serviceName = checkString(options.serviceName, 'serviceName', { allowEmpty: false }) ?? DEFAULTS.serviceName;
    Object.freeze(this);
  }

  /**
   * Read `<P>_ENABLED`, `<P>_SPAN_GROUPS`, `<P>_EXPORTER`, `<P>_TRACES_ENABLED`, `<P>_RUN_ID`,
   * `<P>_USER_ID` and `OTEL_SERVICE_NAME` (else a `service.name` in `OTEL_RESOURCE_ATTRIBUTES`,
   * as the OpenTelemetry SDKs do). A variable that is unset or blank under `prefix` is read
   * under `fallbackPrefix`; a bad value throws `ERR_NEMO_LENS_INVALID_CONFIG` naming the
   * `prefix` variable (and where the value came from).
   */
  static fromEnv(options: FromEnvOptions = {}): NemoLensConfig {
    if (options === null || typeof options !== 'object') {
      throw new NemoLensTypeError(`nemo-lens: NemoLensConfig.fromEnv needs an options object, got ${describe(options)}.`);
    }
    const prefix = checkPrefix(options.prefix ?? 'NEMO_LENS', 'prefix');
    const fallbackPrefix = options.fallbackPrefix === undefined ? undefined : checkPrefix(options.fallbackPrefix, 'fallbackPrefix');
    const env = options.env ?? process.env;
    if (env === null || typeof env !== 'object') {
      throw new NemoLensTypeError(`nemo-lens: fromEnv({ env }) must be an object of variables, got ${describe(env)}.`);
    }
    const read = (suffix: string): EnvValue | undefined => readVariable(env, `${prefix}_${suffix}`, fallbackPrefix && `${fallbackPrefix}_${suffix}`);

    // The booleans first: the reference validates them in from_env and the exporter only at
    // setup, so with both wrong the variable named is the boolean's, in both languages.
    const enabled = parseBoolean(read('ENABLED'));
    const tracesEnabled = parseBoolean(read('TRACES_ENABLED'));
    const exporter = read('EXPORTER');
    return new NemoLensConfig({
      enabled,
      spanGroups: stripped(read('SPAN_GROUPS')),
      // NEMO_LENS_EXPORTER, else the standard OTEL_TRACES_EXPORTER (see otel-env.ts).
      exporter: exporter ? checkExporter(stripWhitespace(exporter.value).toLowerCase(), exporter.label) : tracesExporterFromEnv(env),
      tracesEnabled,
      runId: stripped(read('RUN_ID')),
      userId: stripped(read('USER_ID')),
      serviceName: stripped(nonBlank(env['OTEL_SERVICE_NAME'])) ?? serviceNameFromResourceAttributes(env['OTEL_RESOURCE_ATTRIBUTES']),
    });
  }
}

interface EnvValue {
  readonly value: string;
  /** How to name the variable in an error: `NEMO_LENS_ENABLED="maybe"`, plus the fallback it came from. */
  readonly label: string;
}

function checkPrefix(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new NemoLensTypeError(`nemo-lens: fromEnv({ ${what} }) must be a string, got ${describe(value)}.`);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) {
    throw invalid(`fromEnv({ ${what} }) ${describe(value)} is not a variable-name prefix; use letters, digits and underscores, e.g. "NEMO_LENS".`);
  }
  return value;
}

/**
 * A variable's value stripped as the reference strips it (Python `str.strip()`, not `trim()`:
 * see src/whitespace.ts).
 */
function stripped(variable: EnvValue | string | undefined): string | undefined {
  if (variable === undefined) return undefined;
  return stripWhitespace(typeof variable === 'string' ? variable : variable.value);
}

function nonBlank(value: string | undefined): string | undefined {
  return value === undefined || isBlank(value) ? undefined : value;
}

function readVariable(env: Readonly<Record<string, string | undefined>>, primary: string, fallback: string | undefined): EnvValue | undefined {
  const own = nonBlank(env[primary]);
  if (own !== undefined) return { value: own, label: primary };
  const borrowed = fallback === undefined ? undefined : nonBlank(env[fallback]);
  if (borrowed !== undefined) return { value: borrowed, label: `${primary} (read from ${fallback})` };
  return undefined;
}

function parseBoolean(variable: EnvValue | undefined): boolean | undefined {
  if (variable === undefined) return undefined;
  const word = stripWhitespace(variable.value).toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  throw invalid(`${variable.label}=${describe(variable.value)} is not a boolean; use ${BOOLEAN_WORDS}.`);
}

/** `service.name` from `OTEL_RESOURCE_ATTRIBUTES` (`k=v,k=v`, values percent-encoded), if any. */
export function serviceNameFromResourceAttributes(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  for (const pair of value.split(',')) {
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== 'service.name') continue;
    const raw = pair.slice(eq + 1).trim();
    let decoded = raw;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      // Not valid percent-encoding: the OpenTelemetry SDK would drop it; we keep the raw text.
    }
    if (decoded.trim() !== '') return decoded.trim();
  }
  return undefined;
}
