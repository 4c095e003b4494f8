/** An in-memory OpenTelemetry SDK for tests, registered globally in this test process. */
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';

export function installInMemoryTracing(): { exporter: InMemorySpanExporter; provider: NodeTracerProvider } {
  trace.disable();
  context.disable();
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  return { exporter, provider };
}
