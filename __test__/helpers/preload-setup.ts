/**
 * An OpenTelemetry-style preload (`node --import ./preload-setup.ts app.js`) that sets
 * telemetry up, for telemetry-exit-cycles.spec.ts: it says on stderr in which thread it ran,
 * so a preload that also ran inside the export worker would show up twice.
 */
import { threadId } from 'node:worker_threads';
import { SpanRegistry, managedSpan, setupTelemetry } from '../../src/index';

process.stderr.write(`preload ran in thread ${threadId}\n`);
SpanRegistry.register('preloaded', ['step']);
setupTelemetry({ enabled: true, exporter: 'otlp', spanGroups: 'all', serviceName: 'preloaded' });
setTimeout(() => managedSpan('step', 'after-preload', () => undefined), 10);
