/**
 * Choosing and building the span exporter.
 *
 * Planning (everything that can fail on bad input: the protocol variable, whether the gRPC
 * exporter package is installed) is separate from building, so `setupTelemetry` can refuse a
 * bad configuration before it has created anything. The OTLP exporters read the standard
 * `OTEL_EXPORTER_OTLP_*` variables themselves (endpoint, headers, timeout, compression); this
 * module only picks the protocol, http/protobuf by default as the OpenTelemetry spec says.
 */
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
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

function planOtlp(env: Env, requireOptional: (id: string) => unknown): ExporterPlan {
  const protocol = otlpProtocol(env);
  if (protocol === 'grpc') {
    const loaded = loadGrpcExporter(requireOptional);
    if (typeof loaded !== 'string') {
      return { build: () => new loaded(), target: { description: `OTLP grpc at ${otlpEndpoint(env, 'grpc')}`, hint: OTLP_HINT } };
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
  return { build, target: { description: `OTLP ${http} at ${otlpEndpoint(env, http)}`, hint: OTLP_HINT } };
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
