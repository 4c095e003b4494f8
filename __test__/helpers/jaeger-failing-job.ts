/**
 * A child process for jaeger.spec.ts: a job whose step fails, set up from the environment like
 * examples/demo/job.ts (so it continues the TRACEPARENT the test passes and exports with the
 * OTEL_EXPORTER_OTLP_* the test sets). The demo never fails, so this is what shows how an
 * error status and its exception event look once a real backend has stored them.
 */
import { NemoLensConfig, SpanRegistry, managedSpan, setupTelemetry } from '../../src/index';

SpanRegistry.register('failing', ['job', 'step']);

async function main(): Promise<void> {
  const telemetry = setupTelemetry(NemoLensConfig.fromEnv());
  try {
    await managedSpan('job', 'failing job', async () => {
      await managedSpan('step', 'good step', async () => undefined);
      await managedSpan('step', 'bad step', async () => {
        throw new Error('the loss went NaN at step 3');
      }).catch(() => undefined);
    });
  } finally {
    await telemetry.shutdown();
  }
}

void main();
