/**
 * A job that emits OUTAGE_RATE spans a second for OUTAGE_SECONDS (a tick every 50 ms), then
 * shuts down with a bound of OUTAGE_SHUTDOWN_MS, and prints one JSON line on stdout: spans
 * made, the peak RSS (main thread and export worker together) and warnings by code. For
 * telemetry-outage.spec.ts and scripts/soak-outage.ts, where the collector refuses meanwhile.
 */
import { SpanRegistry, managedSpan, onWarning, setupTelemetry } from '../../src/index';

const rate = Number(process.env['OUTAGE_RATE'] ?? 200);
const seconds = Number(process.env['OUTAGE_SECONDS'] ?? 10);
const shutdownMs = Number(process.env['OUTAGE_SHUTDOWN_MS'] ?? 30_000);
SpanRegistry.register('job', ['step']);
const warnings: Record<string, number> = {};
onWarning(({ code }) => (warnings[code] = (warnings[code] ?? 0) + 1));
const handle = setupTelemetry({ enabled: true, exporter: 'otlp', spanGroups: 'all', serviceName: 'outage-child' }, { resourceAttributes: { rank: 0, worldSize: 1 } });

let made = 0;
let rssPeak = process.memoryUsage.rss();
const perTick = rate / 20;
const ticks = seconds * 20;
let tick = 0;
const timer = setInterval(() => {
  for (let i = 0; i < perTick; i++) {
    managedSpan('step', 'step', { attributes: { 'step.index': made, 'step.payload': 'x'.repeat(200) } }, () => undefined);
    made++;
  }
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  if (++tick < ticks) return;
  clearInterval(timer);
  const started = Date.now();
  void handle.shutdown(shutdownMs).then(() => {
    process.stdout.write(`${JSON.stringify({ made, rssPeakMiB: Math.round(rssPeak / 2 ** 20), shutdownMs: Date.now() - started, warnings })}\n`);
  });
}, 50);
