/** Two small helpers the telemetry specs share: run with some env variables set, and collect warnings. */
import { onWarning, type NemoLensWarning } from '../../src/index';

/** The nemo-lens warnings emitted until `stop()`. NO_RANK (a setup without a rank) is held by parity-identity.spec.ts, not here. */
export function captureWarnings(): NemoLensWarning[] & { stop(): void } {
  const warnings = [] as unknown as NemoLensWarning[] & { stop(): void };
  warnings.stop = onWarning((warning) => void (warning.code !== 'NEMO_LENS_NO_RANK' && warnings.push(warning)));
  return warnings;
}

type EnvVars = Record<string, string | undefined>;

function apply(values: EnvVars): void {
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
}

/** Run `fn` with `vars` set in process.env (undefined deletes), restoring what was there after. */
export async function withEnv<T>(vars: EnvVars, fn: () => T | Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((key) => [key, process.env[key]]));
  apply(vars);
  try {
    return await fn();
  } finally {
    apply(saved);
  }
}

/** `withEnv` for a synchronous `fn` (a setup that must throw or not, inside one t.throws). */
export function withEnvSync<T>(vars: EnvVars, fn: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((key) => [key, process.env[key]]));
  apply(vars);
  try {
    return fn();
  } finally {
    apply(saved);
  }
}
