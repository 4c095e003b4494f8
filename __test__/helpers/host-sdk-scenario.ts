/**
 * A host application with its own OpenTelemetry SDK (`NodeSDK` from @opentelemetry/sdk-node),
 * and nemo-lens set up beside it, in the order `ORDER` says:
 *   - `host-first`: NodeSDK.start(), then setupTelemetry (traces on);
 *   - `nemo-first`: setupTelemetry (traces on), then NodeSDK.start();
 *   - `nemo-first-export`: the same with { foreignSpans: 'export' };
 *   - `gated`: NodeSDK.start(), then setupTelemetry with tracesEnabled: false.
 * One trace: a host span (scope "host-app") with a nemo-lens child and a host grandchild.
 * Prints one JSON line: what each exporter received, the warnings, and handle.pipeline.
 */
import { trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { SpanRegistry, managedSpan, onWarning, setupTelemetry, type TelemetryHandle } from '../../src/index';

const order = process.env['ORDER'] ?? 'host-first';
const warnings: string[] = [];
// NO_RANK (a setup without a rank, see resource.ts) is held by parity-identity.spec.ts, not here.
onWarning((warning) => void (warning.code !== 'NEMO_LENS_NO_RANK' && warnings.push(warning.code)));
SpanRegistry.register('lib', ['work']);

/** The in-memory exporter forgets its spans at shutdown; these are read after it. */
class KeepingExporter extends InMemorySpanExporter {
  override shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const hostExporter = new KeepingExporter();
const nemoExporter = new KeepingExporter();
const sdk = new NodeSDK({ serviceName: 'host-service', traceExporter: hostExporter, instrumentations: [] });
let handle: TelemetryHandle | undefined;
const setup = () => {
  handle = setupTelemetry(
    { enabled: true, spanGroups: 'all', serviceName: 'nemo-service', tracesEnabled: order !== 'gated' },
    { spanExporter: nemoExporter, foreignSpans: order === 'nemo-first-export' ? 'export' : undefined },
  );
};

if (order.startsWith('nemo-first')) {
  setup();
  sdk.start();
} else {
  sdk.start();
  setup();
}
const pipeline = handle!.pipeline;

trace.getTracer('host-app').startActiveSpan('host-request', (root) => {
  managedSpan('work', 'nemo-work', () => {
    trace.getTracer('host-app').startActiveSpan('host-db', (child) => child.end());
  });
  root.end();
});

void (async () => {
  const flushed = await handle!.forceFlush(2000);
  await handle!.shutdown();
  await sdk.shutdown();
  const describe = (exporter: InMemorySpanExporter) =>
    exporter.getFinishedSpans().map((span) => ({
      name: span.name,
      scope: span.instrumentationScope.name,
      traceId: span.spanContext().traceId,
      service: span.resource.attributes['service.name'],
    }));
  process.stdout.write(`${JSON.stringify({ pipeline, flushed, host: describe(hostExporter), nemo: describe(nemoExporter), warnings })}\n`);
})();
