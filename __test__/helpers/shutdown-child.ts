/**
 * A child job for telemetry-endpoints.spec.ts: OTLP export to OTEL_EXPORTER_OTLP_ENDPOINT
 * (set by the parent), 50 step spans, then `shutdown(SHUTDOWN_MS)`. It prints one JSON line
 * per warning and `{"shutdown":"returned"}` when shutdown resolved; the parent then measures
 * how long the process takes to exit on its own (nothing else keeps it alive).
 */
import { SpanRegistry, managedSpan, onWarning, setupTelemetry } from '../../src/index';

onWarning((warning) => process.stdout.write(`${JSON.stringify({ warning })}\n`));
SpanRegistry.register('child', ['step']);
const handle = setupTelemetry({ enabled: true, exporter: 'otlp', spanGroups: 'all', serviceName: 'shutdown-child' });
for (let i = 0; i < 50; i++) managedSpan('step', `step-${i}`, () => undefined);
void handle.shutdown(Number(process.env['SHUTDOWN_MS'] ?? 500)).then(() => process.stdout.write(`${JSON.stringify({ shutdown: 'returned' })}\n`));
