/**
 * `setupTelemetry` as the package entry exports it: the OpenTelemetry SDK, resources and
 * exporters load on the first setup, not at import. A library that only registers span
 * groups and gates its sites never loads them (bench/ "start-up" measures the difference).
 */
import { NemoLensError } from '../errors';
import type { NemoLensConfig, NemoLensConfigOptions } from './config';
import type * as Setup from './setup';

let setup: typeof Setup | undefined;

export function loadSetup(): typeof Setup {
  if (setup === undefined) {
    try {
      setup = require('./setup') as typeof Setup;
    } catch (error) {
      throw bundleWithoutRequire(error) ?? error;
    }
  }
  return setup;
}

/**
 * esbuild's ESM output has no `require`, and the OpenTelemetry SDK (CommonJS) requires Node
 * built-ins when it loads: the bare "Dynamic require of "util" is not supported" becomes an
 * error that says what to do (README "Bundlers and runtimes").
 */
function bundleWithoutRequire(error: unknown): NemoLensError | undefined {
  const message = error instanceof Error ? error.message : '';
  if (!/^Dynamic require of ".*" is not supported/.test(message)) return undefined;
  return new NemoLensError(
    'ERR_NEMO_LENS_BUNDLE_WITHOUT_REQUIRE',
    `nemo-lens: setupTelemetry loads the OpenTelemetry SDK, which requires Node built-ins, and this ESM bundle has no require (${message}). ` +
      "Mark nemo-lens as external in the bundler, or give the bundle a require: esbuild --banner:js=\"import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);\".",
    { cause: error },
  );
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
