/**
 * A job for the exit tests (telemetry-exit.spec.ts): CHILD_STEPS `step` spans end inside an
 * open `job` span, then an open `stuck_step` waits forever and the job ends as CHILD_ENDING
 * says. With CHILD_TELEMETRY=off the same code runs with telemetry disabled: "without
 * nemo-lens", the reference for exit code, signal and stderr.
 *
 * Endings: `exit` (process.exit(3)), `throw` (an uncaught exception), `reject` (an unhandled
 * rejection), `signal` (the parent sends one after "ready"), `host-handler` (the host's own
 * SIGTERM listener exits with 7 a little later), `natural` (the loop drains; stuck_step is
 * then a timer-less promise, so only `job`'s steps and the truncated spans remain).
 * "ready" is printed on stdout once the steps have ended and stuck_step is open.
 */
import { SpanRegistry, managedSpan, setupTelemetry } from '../../src/index';

const ending = process.env['CHILD_ENDING'] ?? 'exit';
const steps = Number(process.env['CHILD_STEPS'] ?? 600);
SpanRegistry.register('job', ['job', 'step']);
setupTelemetry(
  { enabled: process.env['CHILD_TELEMETRY'] !== 'off', exporter: 'otlp', spanGroups: 'all', serviceName: 'exit-child' },
  { resourceAttributes: { rank: 0, worldSize: 1 } },
);

if (ending === 'host-handler') {
  process.on('SIGTERM', () => {
    process.stderr.write('host: cleaning up\n');
    setTimeout(() => process.exit(7), 50);
  });
}

function end(): void {
  switch (ending) {
    case 'exit':
      return process.exit(3);
    case 'throw':
      throw new Error('the job failed');
    case 'reject':
      void Promise.reject(new Error('the job was rejected'));
      return;
  }
}

void managedSpan('job', 'job', async () => {
  for (let i = 0; i < steps; i++) {
    managedSpan('step', 'step', { attributes: { 'step.index': i } }, () => undefined);
    if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
  }
  await managedSpan('step', 'stuck_step', () => {
    process.stdout.write('ready\n');
    // Signal endings keep the process alive until the parent's signal arrives.
    const keepAlive = ending === 'signal' || ending === 'host-handler' ? setInterval(() => undefined, 1000) : undefined;
    if (ending !== 'natural') setTimeout(end, 20);
    return new Promise<void>(() => void keepAlive);
  });
});
