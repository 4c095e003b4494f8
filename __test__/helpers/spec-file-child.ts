/**
 * A child job for telemetry-spec-file.spec.ts. It registers `trainer` with groups `base` and
 * `extra` (preset `default` = `base`), sets telemetry up with the console exporter (its spec
 * from NEMO_LENS_SPAN_GROUPS_FILE, set by the parent), then every 25 ms emits one `base-step`
 * and one `extra-step` span until its stdin closes; then it shuts down and must exit on its
 * own. Warnings go to stderr as JSON lines; spans are the console exporter's JSON lines.
 */
import { SpanRegistry, managedSpan, onWarning, setupTelemetry } from '../../src/index';

onWarning((warning) => process.stderr.write(`${JSON.stringify({ warning })}\n`));
SpanRegistry.register('trainer', ['base', 'extra'], { default: ['base'] });
const handle = setupTelemetry({ enabled: true, exporter: 'console', serviceName: 'spec-file-child' });
const timer = setInterval(() => {
  managedSpan('base', 'base-step', () => undefined);
  managedSpan('extra', 'extra-step', () => undefined);
}, 25);
process.stdin.on('data', () => undefined);
process.stdin.on('end', () => {
  clearInterval(timer);
  void handle.shutdown(2000).then(() => process.stderr.write(`${JSON.stringify({ shutdown: 'returned' })}\n`));
});
process.stderr.write(`${JSON.stringify({ ready: true })}\n`);
