/**
 * A real tracing backend for the suite: Jaeger v2 (an OpenTelemetry Collector distribution)
 * in a process of its own, on free 127.0.0.1 ports, with in-memory storage. The binary is
 * built from the Go module proxy by scripts/jaeger/build.sh into a cache folder; this module
 * finds it where that script puts it, writes a config file to a temp dir, starts it, waits
 * until its receivers and query API are up, and reads traces back through the query API's
 * /api/v3 (OTLP/JSON), decoded by helpers/otlp-json.ts into the receivers' DecodedSpan shape.
 *
 * Used by __test__/jaeger.spec.ts and by scripts/jaeger/screenshot.ts (with the UI).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

import { decodeJsonTraceData, type JsonTraceData } from './otlp-json';
import type { DecodedSpan } from './protobuf';

const ROOT = path.join(__dirname, '..', '..');
export const BUILD_SCRIPT = 'scripts/jaeger/build.sh';

/** The same defaults as scripts/jaeger/build.sh: keep the two in step. */
export function jaegerVersion(env: NodeJS.ProcessEnv = process.env): string {
  return env['NEMO_LENS_JAEGER_VERSION'] || 'v1.76.0';
}

export function jaegerBinaryPath(env: NodeJS.ProcessEnv = process.env): string {
  const version = jaegerVersion(env);
  const cache = env['NEMO_LENS_JAEGER_CACHE'] || path.join(env['XDG_CACHE_HOME'] || path.join(os.homedir(), '.cache'), 'nemo-lens', 'jaeger');
  return path.join(cache, `jaeger-${version}`);
}

/** The binary's path, or an error that says how to get it (the suite fails rather than skip). */
export function requireJaegerBinary(): string {
  const binary = jaegerBinaryPath();
  try {
    fs.accessSync(binary, fs.constants.X_OK);
    return binary;
  } catch {
    throw new Error(
      `The Jaeger binary the real-backend tests need is missing: ${binary}. ` +
        `Build it once with \`bash ${BUILD_SCRIPT}\` (from the Go module proxy, about 10 minutes on 2 cores; ` +
        `.ci/run does this before npm test). NEMO_LENS_JAEGER_CACHE and NEMO_LENS_JAEGER_VERSION choose where and which.`,
    );
  }
}

/** The directory holding the gRPC exporter the demo's grpc run loads (see scripts/jaeger/grpc/package.json). */
export function requireGrpcExporterModules(): string {
  const modules = path.join(ROOT, 'scripts', 'jaeger', 'grpc', 'node_modules');
  if (!fs.existsSync(path.join(modules, '@opentelemetry', 'exporter-trace-otlp-grpc', 'package.json'))) {
    throw new Error(
      `The gRPC exporter for the Jaeger tests is not installed in ${modules}. ` +
        'Install it with `npm ci --prefix scripts/jaeger/grpc` (.ci/run does this before npm test).',
    );
  }
  return modules;
}

export interface Jaeger {
  /** OTLP/HTTP base URL (exporters append /v1/traces). */
  readonly otlpHttpUrl: string;
  /** OTLP/gRPC endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  readonly otlpGrpcUrl: string;
  /** Query service (HTTP API, and the UI when one is configured). */
  readonly queryUrl: string;
  /** Everything Jaeger logged so far (for failure messages). */
  log(): string;
  /** The spans Jaeger holds for a trace ([] when it has none). */
  trace(traceId: string): Promise<DecodedSpan[]>;
  /** Poll the trace until it holds at least `count` spans or `timeoutMs` passes; returns what it holds then. */
  /** The trace's spans once `count` of them pass `counted` (default: all count), or at the timeout. */
  waitForTrace(traceId: string, count: number, timeoutMs?: number, counted?: (span: DecodedSpan) => boolean): Promise<DecodedSpan[]>;
  stop(): Promise<void>;
}

export interface JaegerOptions {
  /** A folder of built jaeger-ui assets to serve (the Go build embeds only a placeholder page). */
  readonly uiAssetsPath?: string;
}

/** Distinct free ports: all listened on at once, then released for Jaeger to take. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, () => new Promise<net.Server>((resolve, reject) => {
      const server = net.createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve(server));
    })),
  );
  const ports = servers.map((server) => (server.address() as net.AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

interface Ports {
  readonly otlpGrpc: number;
  readonly otlpHttp: number;
  readonly queryHttp: number;
  readonly queryGrpc: number;
}

/**
 * Only what the tests use: OTLP receivers, in-memory storage, the query extension. Its own
 * metrics are off (their default is a fixed port, 8888), and no other extension listens.
 * JSON is YAML, so the file is written with JSON.stringify.
 */
function configFor(ports: Ports, options: JaegerOptions): string {
  const ui = options.uiAssetsPath ? { assets_path: options.uiAssetsPath } : {};
  return JSON.stringify(
    {
      service: {
        extensions: ['jaeger_storage', 'jaeger_query'],
        pipelines: { traces: { receivers: ['otlp'], exporters: ['jaeger_storage_exporter'] } },
        telemetry: { metrics: { level: 'none' }, logs: { level: 'info' } },
      },
      extensions: {
        jaeger_storage: { backends: { memstore: { memory: { max_traces: 10_000 } } } },
        jaeger_query: {
          storage: { traces: 'memstore' },
          ui,
          http: { endpoint: `127.0.0.1:${ports.queryHttp}` },
          grpc: { endpoint: `127.0.0.1:${ports.queryGrpc}` },
        },
      },
      receivers: {
        otlp: {
          protocols: {
            grpc: { endpoint: `127.0.0.1:${ports.otlpGrpc}` },
            http: { endpoint: `127.0.0.1:${ports.otlpHttp}` },
          },
        },
      },
      exporters: { jaeger_storage_exporter: { trace_storage: 'memstore' } },
    },
    null,
    2,
  );
}

const READY_LINE = 'Everything is ready';

/**
 * Jaeger runs under this bash watchdog, which stops it (SIGTERM, a clean shutdown) when its
 * stdin closes: when stop() ends it, and also when the test process dies without running any
 * handler (ava kills a timed-out worker with SIGKILL), so no Jaeger outlives its test.
 * Background jobs get /dev/null as stdin, hence the copy of stdin on fd 3.
 */
const WATCHDOG = [
  'exec 3<&0',
  '"$@" </dev/null & jaeger=$!',
  '{ read -r _ <&3; kill -TERM "$jaeger" 2>/dev/null; } & reader=$!',
  'wait "$jaeger"; status=$?',
  'kill "$reader" 2>/dev/null',
  'exit "$status"',
].join('\n');
const START_TIMEOUT_MS = 30_000;

function waitUntilReady(child: ChildProcess, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`Jaeger did not report ready within ${START_TIMEOUT_MS} ms:\n${output()}`)), START_TIMEOUT_MS);
    const onData = () => {
      if (output().includes(READY_LINE)) finish();
    };
    const onExit = (code: number | null, signal: string | null) =>
      finish(new Error(`Jaeger exited before it was ready (code ${code}, signal ${signal}):\n${output()}`));
    const finish = (error?: Error) => {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve();
    };
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    onData();
  });
}

async function waitForQueryApi(queryUrl: string, output: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    try {
      const response = await fetch(`${queryUrl}/api/v3/services`, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`Jaeger's query API at ${queryUrl} did not answer within ${START_TIMEOUT_MS} ms:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function startOnce(binary: string, options: JaegerOptions): Promise<Jaeger> {
  const [otlpGrpc, otlpHttp, queryHttp, queryGrpc] = (await freePorts(4)) as [number, number, number, number];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nemo-lens-jaeger-'));
  const configFile = path.join(dir, 'config.yaml');
  fs.writeFileSync(configFile, configFor({ otlpGrpc, otlpHttp, queryHttp, queryGrpc }, options));

  const child = spawn('bash', ['-c', WATCHDOG, 'nemo-lens-jaeger', binary, '--config', configFile], {
    cwd: dir,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    // Startup and errors come first; at info level a run logs little more, but keep it bounded.
    if (output.length < 200_000) output += chunk;
  });
  const exited = once(child, 'exit');

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin!.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    await waitUntilReady(child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }

  const queryUrl = `http://127.0.0.1:${queryHttp}`;
  try {
    // The pipelines report ready before the query extension's HTTP server is listening.
    await waitForQueryApi(queryUrl, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  const trace = async (traceId: string): Promise<DecodedSpan[]> => {
    const response = await fetch(`${queryUrl}/api/v3/traces/${traceId}`, { signal: AbortSignal.timeout(10_000) });
    if (response.status === 404) return [];
    if (!response.ok) throw new Error(`Jaeger's query API answered ${response.status}: ${await response.text()}`);
    const body = (await response.json()) as { result?: JsonTraceData };
    return decodeJsonTraceData(body.result ?? {});
  };
  return {
    otlpHttpUrl: `http://127.0.0.1:${otlpHttp}`,
    otlpGrpcUrl: `http://127.0.0.1:${otlpGrpc}`,
    queryUrl,
    log: () => output,
    trace,
    async waitForTrace(traceId, count, timeoutMs = 15_000, counted = () => true) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const spans = await trace(traceId);
        if (spans.filter(counted).length >= count || Date.now() > deadline) return spans;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    stop,
  };
}

/** Start Jaeger; a port taken between our probe and its bind is retried on fresh ports, twice. */
export async function startJaeger(options: JaegerOptions = {}): Promise<Jaeger> {
  const binary = requireJaegerBinary();
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(binary, options);
    } catch (error) {
      if (attempt >= 3 || !String((error as Error).message).includes('address already in use')) throw error;
    }
  }
}
