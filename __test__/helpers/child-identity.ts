/**
 * A child process for the identity and carrier tests: an enabled setup from its real
 * environment (process.env as its parent built it), one span, then a JSON line on stdout with
 * what a collector would see: the resource, the span's trace and parent, the baggage in
 * effect, the warning codes, and what this child would hand its own child.
 */
import { propagation, context } from '@opentelemetry/api';
import { SpanRegistry, envWithTraceContext, managedSpan, onWarning, setupTelemetry } from '../../src/index';
import { RecordingExporter } from './exporters';

const codes: string[] = [];
onWarning((warning) => codes.push(warning.code));
SpanRegistry.register('child', ['work']);
const exporter = new RecordingExporter();
const handle = setupTelemetry({ enabled: true, spanGroups: 'all', runId: process.env['CHILD_RUN_ID'] }, { spanExporter: exporter });
const grandchildEnv = managedSpan('work', 'child-span', () => envWithTraceContext({}));
const baggage = propagation.getBaggage(context.active());
void handle.shutdown().then(() => {
  const [span] = exporter.getFinishedSpans();
  process.stdout.write(
    `${JSON.stringify({
      resource: span?.resource.attributes,
      traceId: span?.spanContext().traceId,
      parentSpanId: span?.parentSpanContext?.spanId,
      baggage: Object.fromEntries((baggage?.getAllEntries() ?? []).map(([key, entry]) => [key, entry.value])),
      warnings: codes,
      grandchildEnv,
    })}\n`,
  );
});
