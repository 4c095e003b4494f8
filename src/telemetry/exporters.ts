/**
 * Choosing and building the span exporter.
 *
 * Planning (everything that can fail on bad input: the protocol variable, whether the gRPC
 * exporter package is installed) is separate from building, so `setupTelemetry` can refuse a
 * bad configuration before it has created anything. The OTLP exporters read the standard
 * `OTEL_EXPORTER_OTLP_*` variables themselves (endpoint, headers, timeout, compression); this
 * module picks the protocol, http/protobuf by default as the OpenTelemetry spec says, and
 * refuses at setup what the exporter would silently get wrong (`checkOtlpEnvironment`):
 *   - an endpoint that is not an http(s) URL: the SDK logs to `diag` (off by default) and
 *     sends to http://localhost:4318 instead, so `OTEL_EXPORTER_OTLP_ENDPOINT=not a url` lost
 *     every span without a word;
 *   - headers that cannot be sent: the SDK drops an entry without `=`, or whose percent-
 *     encoding is broken, cuts a value at `;` (baggage metadata), and Node refuses a name
 *     or value with characters HTTP does not allow at the first export. A missing
 *     `Authorization` header shows up only as the collector's 401, much later.
 * `__test__/telemetry-endpoints.spec.ts` holds these in place.
 */
import { validateHeaderName, validateHeaderValue } from 'node:http';

import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { NemoLensError, describe } from '../errors';
import { emitWarning } from '../warnings';
import type { ExporterName } from './config';
import { ConsoleJsonSpanExporter } from './console-exporter';
import type { ExportTarget } from './guarded-exporter';

export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** The optional peer package for OTLP over gRPC (not a dependency: it pulls in @grpc/grpc-js). */
export const GRPC_EXPORTER_PACKAGE = '@opentelemetry/exporter-trace-otlp-grpc';

type Env = Readonly<Record<string, string | undefined>>;

/** What to build, decided and validated up front. `build` itself does no I/O. */
export interface ExporterPlan {
  /** `undefined` for the `none` exporter: no export at all. */
  readonly build: (() => SpanExporter) | undefined;
  readonly target: ExportTarget;
  /** The OTLP protocol `build` uses, for the export worker, which builds its own exporter. */
  readonly otlp?: OtlpProtocol;
}

export interface PlanInputs {
  readonly exporter: ExporterName;
  readonly injected: SpanExporter | undefined;
  readonly env?: Env;
  /** How to load the optional gRPC package; replaceable in tests. */
  readonly requireOptional?: (id: string) => unknown;
}

const OTLP_HINT = 'Check that the collector is running and reachable (OTEL_EXPORTER_OTLP_ENDPOINT), or set NEMO_LENS_EXPORTER=console or none.';

export function planExporter({ exporter, injected, env = process.env, requireOptional = require }: PlanInputs): ExporterPlan {
  // An injected exporter wins over the configured name: tests and hosts with their own pipeline.
  if (injected !== undefined) {
    return { build: () => injected, target: { description: `the injected exporter (${injected.constructor?.name ?? 'object'})`, hint: 'Check that exporter.' } };
  }
  switch (exporter) {
    case 'none':
      return { build: undefined, target: { description: 'nowhere', hint: '' } };
    case 'console':
      return { build: () => new ConsoleJsonSpanExporter(), target: { description: 'stdout', hint: 'Check that stdout is still open.' } };
    case 'otlp':
      return planOtlp(env, requireOptional);
  }
}

/** `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`, else http/protobuf. */
export function otlpProtocol(env: Env): OtlpProtocol {
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') continue;
    const value = raw.trim().toLowerCase();
    if ((OTLP_PROTOCOLS as readonly string[]).includes(value)) return value as OtlpProtocol;
    throw new NemoLensError(
      'ERR_NEMO_LENS_INVALID_CONFIG',
      `nemo-lens: ${name}=${describe(raw)} is not an OTLP protocol; use one of ${OTLP_PROTOCOLS.join(', ')}.`,
    );
  }
  return 'http/protobuf';
}

/** Where the exporter will send, for messages only (the exporter resolves it itself). */
function otlpEndpoint(env: Env, protocol: OtlpProtocol): string {
  const signal = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim();
  if (signal) return signal;
  const base = env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim();
  if (protocol === 'grpc') return base || 'http://localhost:4317';
  return `${(base || 'http://localhost:4318').replace(/\/+$/, '')}/v1/traces`;
}

/** The endpoint variables, most specific first, as the exporters read them. */
const ENDPOINT_VARIABLES = ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'] as const;
const HEADER_VARIABLES = ['OTEL_EXPORTER_OTLP_TRACES_HEADERS', 'OTEL_EXPORTER_OTLP_HEADERS'] as const;

/** Set to something other than blanks (the SDK's `getStringFromEnv` ignores blank values). */
function setValue(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw;
}

/**
 * Refuse, with `ERR_NEMO_LENS_INVALID_CONFIG` naming the variable, OTLP settings the exporter
 * would ignore or mangle silently (see the module comment). Runs before anything is built.
 */
export function checkOtlpEnvironment(env: Env, protocol: OtlpProtocol): void {
  for (const name of ENDPOINT_VARIABLES) {
    const raw = setValue(env, name);
    if (raw !== undefined) checkEndpoint(name, raw, protocol);
  }
  for (const name of HEADER_VARIABLES) {
    const raw = setValue(env, name);
    if (raw !== undefined) checkHeaders(name, raw);
  }
}

function checkEndpoint(name: string, raw: string, protocol: OtlpProtocol): void {
  const example = protocol === 'grpc' ? 'http://collector:4317' : 'http://collector:4318';
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new NemoLensError(
      'ERR_NEMO_LENS_INVALID_CONFIG',
      `nemo-lens: ${name}=${describe(raw)} is not a URL; write the collector's address with its scheme, e.g. ${example} ` +
        '(the OpenTelemetry exporter would silently send to localhost instead).',
    );
  }
  // gRPC also takes unix: and dns: targets; the HTTP exporters only http: and https:.
  if (protocol !== 'grpc' && url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new NemoLensError(
      'ERR_NEMO_LENS_INVALID_CONFIG',
      `nemo-lens: ${name}=${describe(raw)} is not an http(s) URL (its scheme is "${url.protocol}"); OTLP over ${protocol} needs ` +
        `http:// or https://, e.g. ${example}.`,
    );
  }
}

/**
 * The variable's `key=value,key=value` list (values percent-encoded, as the OpenTelemetry
 * spec says), entry by entry: every entry must reach the collector exactly as written.
 */
function checkHeaders(name: string, raw: string): void {
  const refuse = (entry: string, why: string): never => {
    throw new NemoLensError(
      'ERR_NEMO_LENS_INVALID_CONFIG',
      `nemo-lens: ${name} has a header that cannot be sent: ${describe(entry.trim())} ${why}. ` +
        'Write headers as key=value pairs separated by commas, with the values percent-encoded (e.g. Authorization=Bearer%20abc).',
    );
  };
  for (const entry of raw.split(',')) {
    if (entry.trim() === '') continue;
    const eq = entry.indexOf('=');
    if (eq <= 0 || entry.slice(0, eq).trim() === '') refuse(entry, 'is not key=value');
    const rawKey = entry.slice(0, eq).trim();
    const rawValue = entry.slice(eq + 1).trim();
    if (rawValue === '') refuse(entry, 'has an empty value (the exporter would drop it)');
    if (rawValue.includes(';')) refuse(entry, 'has a ";" in its value, where the exporter would cut it off (write %3B)');
    let key: string;
    let value: string;
    try {
      key = decodeURIComponent(rawKey);
      value = decodeURIComponent(rawValue);
    } catch {
      return refuse(entry, 'is not valid percent-encoding (the exporter would drop it)');
    }
    try {
      validateHeaderName(key);
    } catch {
      refuse(entry, `has a name, ${describe(key)}, that is not an HTTP header name (letters, digits and !#$%&'*+-.^_\`|~ only)`);
    }
    try {
      validateHeaderValue(key, value);
    } catch {
      refuse(entry, 'has a value with characters an HTTP header cannot carry (control characters, or beyond Latin-1)');
    }
  }
}

function planOtlp(env: Env, requireOptional: (id: string) => unknown): ExporterPlan {
  const protocol = otlpProtocol(env);
  if (protocol === 'grpc') {
    const loaded = loadGrpcExporter(requireOptional);
    // Checked for the protocol that will actually be used: a fallback to HTTP needs an http(s) URL.
    checkOtlpEnvironment(env, typeof loaded === 'string' ? 'http/protobuf' : 'grpc');
    if (typeof loaded !== 'string') {
      return { build: () => new loaded(), target: { description: `OTLP grpc at ${otlpEndpoint(env, 'grpc')}`, hint: OTLP_HINT }, otlp: 'grpc' };
    }
    emitWarning(
      'NEMO_LENS_EXPORTER_FALLBACK',
      `nemo-lens: OTLP over gRPC was asked for, but ${GRPC_EXPORTER_PACKAGE} could not be loaded (${loaded}); ` +
        `exporting over http/protobuf to ${otlpEndpoint(env, 'http/protobuf')} instead. ` +
        `Install ${GRPC_EXPORTER_PACKAGE} (a version matching @opentelemetry/exporter-trace-otlp-proto) for gRPC, ` +
        'or set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf and point OTEL_EXPORTER_OTLP_ENDPOINT at the collector\'s HTTP port (4318 by default).',
    );
  }
  const http = protocol === 'http/json' ? 'http/json' : 'http/protobuf';
  if (protocol !== 'grpc') checkOtlpEnvironment(env, http);
  // Required when built, not at import: only a process that exports over OTLP loads the
  // exporter and its transformer (which pulls in much of the metrics SDK).
  const build = (): SpanExporter => {
    if (http === 'http/json') {
      const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
      return new OTLPTraceExporter();
    }
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
    return new OTLPTraceExporter();
  };
  return { build, target: { description: `OTLP ${http} at ${otlpEndpoint(env, http)}`, hint: OTLP_HINT }, otlp: http };
}

type ExporterClass = new () => SpanExporter;

/** The gRPC exporter class, or why it is unavailable. */
function loadGrpcExporter(requireOptional: (id: string) => unknown): ExporterClass | string {
  let loaded: unknown;
  try {
    loaded = requireOptional(GRPC_EXPORTER_PACKAGE);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // MODULE_NOT_FOUND for the package itself means "not installed"; for one of its own
    // dependencies it means a broken install, which deserves the full message.
    const missing = (error as { code?: unknown } | null)?.code === 'MODULE_NOT_FOUND' && message.includes(`'${GRPC_EXPORTER_PACKAGE}'`);
    return missing ? 'it is not installed' : `loading it failed: ${message.split('\n')[0]}`;
  }
  const Exporter = (loaded as { OTLPTraceExporter?: unknown } | null)?.OTLPTraceExporter;
  return typeof Exporter === 'function' ? (Exporter as ExporterClass) : 'it has no OTLPTraceExporter export';
}
