/**
 * A job that hangs, for telemetry-hang.spec.ts: 30 `step` spans end inside `job`, then
 * `hung_step` hangs. CHILD_HANG=async awaits forever; CHILD_HANG=sync busy-loops for
 * CHILD_BUSY_MS on the main thread (no timer, no I/O of this process runs meanwhile), then
 * awaits forever. "hanging" is printed on stdout just before the hang starts.
 */
import { SpanRegistry, managedSpan, setupTelemetry } from '../../src/index';

const hang = process.env['CHILD_HANG'] ?? 'async';
const busyMs = Number(process.env['CHILD_BUSY_MS'] ?? 10_000);
SpanRegistry.register('job', ['job', 'step']);
setupTelemetry({ enabled: true, exporter: 'otlp', spanGroups: 'all', serviceName: 'hang-child' }, { resourceAttributes: { rank: 0, worldSize: 1 } });
setInterval(() => undefined, 1000); // a job that waits forever, until its signal

void managedSpan('job', 'job', async () => {
  for (let i = 0; i < 30; i++) {
    await managedSpan('step', 'step', { attributes: { 'step.index': i } }, () => new Promise((resolve) => setTimeout(resolve, 5)));
  }
  await managedSpan('step', 'hung_step', { attributes: { 'hang.kind': hang } }, async () => {
    process.stdout.write('hanging\n');
    if (hang === 'sync') {
      const until = Date.now() + busyMs;
      while (Date.now() < until);
      process.stdout.write('busy loop over\n');
    }
    await new Promise(() => undefined);
  });
});
