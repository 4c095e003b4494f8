/**
 * `setupTelemetry` as the package entry exports it: the OpenTelemetry SDK, resources and
 * exporters load on the first setup, not at import. A library that only registers span
 * groups and gates its sites never loads them (bench/ "start-up" measures the difference).
 */
import type { NemoLensConfig, NemoLensConfigOptions } from './config';
import type * as Setup from './setup';

let setup: typeof Setup | undefined;

export function loadSetup(): typeof Setup {
  return (setup ??= require('./setup') as typeof Setup);
}

/**
 * Set up telemetry for this process from `config` (default `NemoLensConfig.fromEnv()`).
 * Throws, having created nothing, on an invalid config or options, or when a setup is
 * already active (`ERR_NEMO_LENS_ALREADY_INITIALIZED`, unless `allowReinit`).
 *
 * **Applications call this once, at start-up; libraries never call it.** It installs the
 * process-wide OpenTelemetry tracer provider, context manager and propagator and an exit
 * hook, and applies the span-group spec: choices that belong to the application. A library
 * only registers its groups (`SpanRegistry.register`) and gates its sites (`managedSpan`,
 * `traceFn`, `spanGroup`); those work before, after and without any setup. A library that
 * called this would make the host's own call fail with `ERR_NEMO_LENS_ALREADY_INITIALIZED`.
 */
export function setupTelemetry(config?: NemoLensConfig | NemoLensConfigOptions, options?: Setup.TelemetryOptions): Setup.TelemetryHandle {
  return loadSetup().setupTelemetry(config, options);
}
