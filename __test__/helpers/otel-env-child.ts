/**
 * A process that exports over OTLP to OTEL_EXPORTER_OTLP_ENDPOINT (the test points it at a
 * port nothing listens on), for the OTEL_LOG_LEVEL test: the diag logger must say why on stderr.
 */
import { SpanRegistry, managedSpan, setupTelemetry } from '../../src/index';

SpanRegistry.register('child', ['work']);
const handle = setupTelemetry({ enabled: true, spanGroups: 'all', exporter: 'otlp' });
managedSpan('work', 'unexported', () => undefined);
void handle.forceFlush(3000).then(() => handle.shutdown(500));
