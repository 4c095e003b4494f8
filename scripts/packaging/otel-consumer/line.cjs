// One OpenTelemetry JS line end to end, in a project that installed nemo-lens beside a host SDK.
//   node line.cjs otlp  -> nemo-lens's own pipeline, OTLP http/json to a receiver on 127.0.0.1
//   node line.cjs host  -> a host NodeSDK started first; nemo-lens spans go through it
//   node line.cjs grpc  -> OTLP over gRPC with the host's exporter-trace-otlp-grpc, to a port nothing listens on
//   node line.cjs console -> the console exporter (JSON lines on stdout), a span left open is truncated at shutdown
// Prints one JSON line for scripts/packaging/otel-lines.ts to check.
'use strict';
const http = require('node:http');
const path = require('node:path');
const nemo = require('nemo-lens');

const mode = process.argv[2];
const warnings = [];
// NO_RANK (a setup that names no rank) is held by the suite's parity-identity spec, not here.
nemo.onWarning((warning) => warning.code !== 'NEMO_LENS_NO_RANK' && warnings.push(warning.code));
nemo.SpanRegistry.register('consumer', ['job', 'step']);

function work() {
  nemo.managedSpan('job', 'job', () => {
    for (let i = 0; i < 3; i++) nemo.managedSpan('step', `step-${i}`, () => undefined);
  });
}

/** The file `name` resolves to from `from`: one copy means one answer. */
function copyOf(name, from) {
  return require.resolve(name, { paths: [from] });
}

/** The package directory of an entry file (packages may not export ./package.json). */
function packageDir(entry, name) {
  const marker = `${path.sep}node_modules${path.sep}${name.split('/').join(path.sep)}${path.sep}`;
  return entry.slice(0, entry.lastIndexOf(marker) + marker.length);
}

function copies() {
  const nemoDir = packageDir(require.resolve('nemo-lens'), 'nemo-lens');
  const sdkNodeDir = packageDir(require.resolve('@opentelemetry/sdk-node'), '@opentelemetry/sdk-node');
  const names = ['@opentelemetry/api', '@opentelemetry/sdk-trace', '@opentelemetry/core', '@opentelemetry/resources'];
  return Object.fromEntries(names.map((name) => [name, copyOf(name, nemoDir) === copyOf(name, sdkNodeDir)]));
}

const out = (result) => process.stdout.write(`${JSON.stringify({ ...result, warnings, shared: copies(), backend: nemo.backend })}\n`);

if (mode === 'otlp') {
  const bodies = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      bodies.push(JSON.parse(body));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  server.listen(0, '127.0.0.1', async () => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${server.address().port}`;
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
    const handle = nemo.setupTelemetry({ enabled: true, spanGroups: 'all', serviceName: 'consumer' });
    const pipeline = handle.pipeline;
    work();
    const flushed = await handle.forceFlush(5000);
    await handle.shutdown(5000);
    server.close();
    const spans = bodies.flatMap((body) => body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    let violations = 0;
    for (const span of spans) {
      const parent = byId.get(span.parentSpanId);
      if (parent && (BigInt(span.startTimeUnixNano) < BigInt(parent.startTimeUnixNano) || BigInt(span.endTimeUnixNano) > BigInt(parent.endTimeUnixNano))) violations++;
    }
    const children = spans.filter((span) => byId.has(span.parentSpanId)).length;
    out({ pipeline, flushed, names: spans.map((span) => span.name).sort(), children, violations });
  });
} else if (mode === 'grpc') {
  // A closed port: the export must fail through the gRPC exporter itself (no http fallback).
  const probe = require('node:net').createServer();
  probe.listen(0, '127.0.0.1', () => {
    const port = probe.address().port;
    probe.close(async () => {
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${port}`;
      process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'grpc';
      process.env.OTEL_EXPORTER_OTLP_TIMEOUT = '1000';
      const messages = [];
      nemo.onWarning((warning) => messages.push(warning.message));
      const handle = nemo.setupTelemetry({ enabled: true, spanGroups: 'all' });
      work();
      const flushed = await handle.forceFlush(5000);
      await handle.shutdown(2000);
      out({ pipeline: 'nemo-lens', flushed, names: [], grpcFailure: messages.find((message) => message.includes('OTLP grpc')) ?? null });
    });
  });
} else if (mode === 'console') {
  const handle = nemo.setupTelemetry({ enabled: true, spanGroups: 'all', exporter: 'console', serviceName: 'consumer' });
  work();
  void nemo.managedSpan('job', 'left-open', () => new Promise(() => undefined));
  void handle.shutdown(5000);
} else if (mode === 'host') {
  const { NodeSDK } = require('@opentelemetry/sdk-node');
  const { InMemorySpanExporter } = require('@opentelemetry/sdk-trace');
  const exporter = new InMemorySpanExporter();
  const sdk = new NodeSDK({ serviceName: 'host', traceExporter: exporter, instrumentations: [] });
  sdk.start();
  const handle = nemo.setupTelemetry({ enabled: true, spanGroups: 'all', tracesEnabled: false });
  const pipeline = handle.pipeline;
  work();
  void handle.forceFlush(5000).then(async (flushed) => {
    const names = exporter.getFinishedSpans().map((span) => span.name).sort();
    await handle.shutdown();
    await sdk.shutdown();
    out({ pipeline, flushed, names });
  });
}
