/**
 * The edges of OTLP export (src/telemetry/exporters.ts, guarded-exporter.ts, otlp-release.ts):
 * endpoints and headers the exporter would silently get wrong are refused at setup, naming
 * the variable; export warnings say what happened (refused, timed out, HTTP status); and
 * after `shutdown()` resolves, nothing of nemo-lens keeps the process alive, against a
 * refusing and a hanging collector (child processes, a real collector process).
 */
import { spawn } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import * as readline from 'node:readline';

import test from 'ava';

import { OTLPExporterError } from '@opentelemetry/otlp-exporter-base';

import { NemoLensError, SpanRegistry, setupTelemetry, type NemoLensWarning } from '../src/index';
import { resetTelemetry } from '../src/testing';
import { checkOtlpEnvironment } from '../src/telemetry/exporters';
import { describeExportFailure } from '../src/telemetry/guarded-exporter';
import { startCollector, type CollectorMode } from './helpers/collector';
import { withEnvSync } from './helpers/env-warnings';

test.beforeEach(async () => {
  await resetTelemetry();
  SpanRegistry.register('edges', ['step']);
});
test.after.always(() => resetTelemetry());

const OTLP = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', 'OTEL_EXPORTER_OTLP_PROTOCOL'];

/** With only `vars` of the OTLP variables set. */
const withEnv = <T>(vars: Record<string, string>, fn: () => T): T =>
  withEnvSync({ ...Object.fromEntries(OTLP.map((key) => [key, undefined])), ...vars }, fn);

const badSettings: Array<[string, string, RegExp]> = [
  ['OTEL_EXPORTER_OTLP_ENDPOINT', 'not a url', /OTEL_EXPORTER_OTLP_ENDPOINT="not a url" is not a URL/],
  ['OTEL_EXPORTER_OTLP_ENDPOINT', 'localhost:4318', /OTEL_EXPORTER_OTLP_ENDPOINT="localhost:4318" is not an http\(s\) URL/],
  ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'ftp://collector/v1/traces', /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="ftp:\/\/collector\/v1\/traces" is not an http\(s\) URL/],
  ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'http://', /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="http:\/\/" is not a URL/],
  ['OTEL_EXPORTER_OTLP_HEADERS', 'Authorization', /OTEL_EXPORTER_OTLP_HEADERS has a header that cannot be sent: "Authorization" is not key=value/],
  ['OTEL_EXPORTER_OTLP_HEADERS', 'x-tenant=a,=b', /"=b" is not key=value/],
  ['OTEL_EXPORTER_OTLP_HEADERS', 'api key=abc', /"api key=abc" has a name, "api key", that is not an HTTP header name/],
  ['OTEL_EXPORTER_OTLP_TRACES_HEADERS', 'x-token=a%0Ab', /OTEL_EXPORTER_OTLP_TRACES_HEADERS .*"x-token=a%0Ab" has a value with characters an HTTP header cannot carry/],
  ['OTEL_EXPORTER_OTLP_TRACES_HEADERS', 'x-token=%E0%A4%A', /is not valid percent-encoding/],
  ['OTEL_EXPORTER_OTLP_HEADERS', 'Authorization=Basic abc;def', /has a ";" in its value/],
  ['OTEL_EXPORTER_OTLP_HEADERS', 'x-token=', /has an empty value/],
];

for (const [name, value, message] of badSettings) {
  test.serial(`setup refuses ${name}=${JSON.stringify(value)}, naming the variable, and creates nothing`, (t) => {
    const error = withEnv({ [name]: value }, () => t.throws(() => setupTelemetry({ enabled: true, exporter: 'otlp' }), { instanceOf: NemoLensError }));
    t.is((error as NemoLensError).code, 'ERR_NEMO_LENS_INVALID_CONFIG');
    t.regex(error!.message, message);
    // Nothing was set up: a setup without allowReinit succeeds.
    const handle = setupTelemetry({ enabled: true, exporter: 'none' });
    t.false(handle.isExporting);
  });
}

test.serial('endpoints and headers the exporter can send are accepted', (t) => {
  const good = {
    OTEL_EXPORTER_OTLP_ENDPOINT: ' http://127.0.0.1:4318/ ',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector.example:4318/v1/traces',
    OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20abc, x-tenant = t1 ,',
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-scope=%C3%A9t%C3%A9',
  };
  t.notThrows(() => checkOtlpEnvironment(good, 'http/protobuf'));
  t.notThrows(() => checkOtlpEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: 'unix:///run/otel.sock' }, 'grpc'), 'gRPC targets are the gRPC exporter\'s to judge');
  t.notThrows(() => checkOtlpEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: '   ' }, 'http/protobuf'), 'blank is unset, as the SDK reads it');
  // The exporter plan for a custom exporter or `none` does not look at OTLP variables.
  withEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }, () => t.notThrows(() => setupTelemetry({ enabled: true, exporter: 'console' }, { allowReinit: true })));
});

test('export failures are described by what happened', (t) => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4318'), { code: 'ECONNREFUSED', address: '127.0.0.1', port: 4318 });
  t.is(describeExportFailure(refused), 'the connection was refused (nothing listens there, or a firewall rejects it) (ECONNREFUSED 127.0.0.1:4318)');
  t.regex(describeExportFailure(Object.assign(new Error('getaddrinfo ENOTFOUND collector'), { code: 'ENOTFOUND', hostname: 'collector' })), /host name could not be resolved \(ENOTFOUND collector\)/);
  t.regex(describeExportFailure(new Error('Request timed out')), /^the request timed out/);
  t.regex(describeExportFailure(new OTLPExporterError('Bad Request', 400, 'invalid   span\n data')), /^the collector answered HTTP 400 Bad Request: invalid span data$/);
  t.regex(describeExportFailure(new OTLPExporterError('Export failed with retryable status')), /retryable HTTP status \(429, 502, 503 or 504\)/);
  t.is(describeExportFailure('plain string'), 'plain string');
  t.is(describeExportFailure(undefined), 'no reason given');
  const hostile = Proxy.revocable({}, {});
  hostile.revoke();
  t.is(describeExportFailure(hostile.proxy), 'an error that cannot be described');
});

/** A port on 127.0.0.1 where nothing listens: connections are refused. */
async function refusingUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

interface ChildRun {
  warnings: NemoLensWarning[];
  /** From "shutdown returned" to the process's exit, in ms. */
  exitAfterShutdownMs: number;
  code: number | null;
}

async function runShutdownChild(endpoint: string, extra: Record<string, string> = {}): Promise<ChildRun> {
  // 5 s, not less: the export worker that sends the spans can take seconds to start on a loaded
  // machine, and the warnings under test are about what its first attempts met.
  const env: NodeJS.ProcessEnv = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, SHUTDOWN_MS: '5000', ...extra };
  for (const key of Object.keys(env)) if (key.startsWith('NEMO_LENS_') && key !== 'NEMO_LENS_BACKEND') delete env[key];
  const child = spawn(process.execPath, ['--import=tsx', '--no-warnings', path.join(__dirname, 'helpers', 'shutdown-child.ts')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const warnings: NemoLensWarning[] = [];
  let returnedAt: number | undefined;
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as { warning?: NemoLensWarning; shutdown?: string };
    // NO_RANK (the child names no rank, see resource.ts) is held by parity-identity.spec.ts.
    if (message.warning && message.warning.code !== 'NEMO_LENS_NO_RANK') warnings.push(message.warning);
    if (message.shutdown === 'returned') returnedAt = Date.now();
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
  clearTimeout(killer);
  const exitedAt = Date.now();
  if (returnedAt === undefined) throw new Error(`the child never returned from shutdown (exit ${code}): ${stderr}`);
  return { warnings, exitAfterShutdownMs: exitedAt - returnedAt, code };
}

// The exporter alone lingered 8-10 s here; 2.5 s is a generous safety net for a shared machine.
const PROMPT_EXIT_MS = 2500;

test.serial('refused connections: shutdown warns "refused", and the process exits promptly after shutdown resolved', async (t) => {
  const run = await runShutdownChild(await refusingUrl());
  t.log(`exited ${run.exitAfterShutdownMs} ms after shutdown resolved`);
  t.is(run.code, 0);
  t.true(run.exitAfterShutdownMs < PROMPT_EXIT_MS, `lingered ${run.exitAfterShutdownMs} ms`);
  t.is(run.warnings.length, 1, JSON.stringify(run.warnings));
  t.regex(run.warnings[0]!.message, /the connection was refused .*\(ECONNREFUSED 127\.0\.0\.1:\d+\)/);
});

for (const [mode, expected] of [
  ['hang', /did not answer/],
  ['503', /retryable HTTP status/],
  ['400', /HTTP 400 Bad Request: collector says 400/],
] as Array<[CollectorMode, RegExp]>) {
  test.serial(`a collector process answering "${mode}": the warning says so, and the process exits promptly after shutdown`, async (t) => {
    const collector = await startCollector(mode);
    try {
      const run = await runShutdownChild(collector.url);
      t.log(`exited ${run.exitAfterShutdownMs} ms after shutdown resolved`);
      t.is(run.code, 0);
      t.true(run.exitAfterShutdownMs < PROMPT_EXIT_MS, `lingered ${run.exitAfterShutdownMs} ms`);
      t.is(run.warnings.length, 1, JSON.stringify(run.warnings));
      t.regex(run.warnings[0]!.message, expected);
      t.true((await collector.stats()).requests >= 1);
    } finally {
      await collector.kill();
    }
  });
}
