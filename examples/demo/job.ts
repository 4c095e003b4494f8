/**
 * One training job, as a user would run it: configure nemo-lens from the environment
 * (NEMO_LENS_ENABLED, NEMO_LENS_SPAN_GROUPS, NEMO_LENS_EXPORTER, OTEL_*), train, shut down.
 * main.ts runs this three times with different NEMO_LENS_SPAN_GROUPS.
 */
import { NemoLensConfig, setupTelemetry } from '../../src/index';
import { train } from './trainer';

async function main(): Promise<void> {
  // Libraries registered their groups on import (above); now the user's choice applies.
  const telemetry = setupTelemetry(NemoLensConfig.fromEnv(), {
    resourceAttributes: { rank: process.env['RANK'] ?? 0, worldSize: process.env['WORLD_SIZE'] ?? 1 },
  });
  try {
    await train({ epochs: 2, stepsPerEpoch: 4, microBatches: 2 });
  } finally {
    // Flushes what is left; bounded, never throws.
    await telemetry.shutdown();
  }
}

void main();
