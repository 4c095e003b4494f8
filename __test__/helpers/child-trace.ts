/**
 * A child process for the propagation tests. It sets telemetry up with the console exporter
 * and emits `child-root` > `child-leaf`; the parent reads the JSON lines on stdout.
 * CHILD_MODE: `auto` (setup continues TRACEPARENT), `explicit` (continueTraceFromEnv: false,
 * then context.with(contextFromEnv(), ...)), `no-shutdown` (relies on the beforeExit flush),
 * `hang` (an exporter that never answers; shutdown(100), then the process must end promptly).
 */
import { context } from '@opentelemetry/api';
import { SpanRegistry, contextFromEnv, managedSpan, setupTelemetry } from '../../src/index';
import { HangingExporter } from './exporters';

const mode = process.env['CHILD_MODE'] ?? 'auto';
SpanRegistry.register('child', ['work']);
const handle = setupTelemetry(
  { enabled: true, exporter: 'console', spanGroups: 'all', serviceName: 'child' },
  { continueTraceFromEnv: mode !== 'explicit', spanExporter: mode === 'hang' ? new HangingExporter() : undefined },
);

const work = () => managedSpan('work', 'child-root', () => managedSpan('work', 'child-leaf', () => undefined));
if (mode === 'explicit') context.with(contextFromEnv(), work);
else work();

if (mode === 'hang') {
  void handle.shutdown(100).then(() => process.stderr.write('shutdown returned\n'));
} else if (mode !== 'no-shutdown') {
  void handle.shutdown();
}
