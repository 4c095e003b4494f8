// @ts-check
/**
 * The app the package test bundles (esbuild ESM and CommonJS, webpack 5, bun build) and runs
 * from several places: a library that only registers and gates sites, plus the default import.
 * It prints one JSON line: `{ backend, nativeLoadError, sameDefault }`. With `setup` it also
 * sets telemetry up (the SDK loads then) and adds `setup: "ok"` or the error's code.
 */
import lens, { SpanRegistry, backend, managedSpan, nativeLoadError, setupTelemetry, spanGroup } from 'nemo-lens';

SpanRegistry.register('bundled', ['step']);
const STEP = spanGroup('step');
const dark = managedSpan(STEP, 'train_step', (span) => (span === undefined ? 'dark' : 'lit'));
if (dark !== 'dark' || STEP.enabled) throw new Error('a site before any spec must stay dark');
/** @type {Record<string, unknown>} */
const report = { backend, nativeLoadError: nativeLoadError?.message ?? null, sameDefault: lens.managedSpan === managedSpan };
// No top-level await: the same source is bundled to CommonJS too.
if (globalThis.process.argv[2] === 'setup') {
  try {
    // A rank, as a job's process has one (without it the setup warns NEMO_LENS_NO_RANK).
    const handle = setupTelemetry({ enabled: true, spanGroups: 'all', exporter: 'none' }, { resourceAttributes: { 'dl.rank': 0 } });
    report.setup = STEP.enabled ? 'ok' : 'not enabled';
    handle.shutdown().then(() => console.log(JSON.stringify(report)));
  } catch (error) {
    report.setup = /** @type {{ code?: string }} */ (error).code ?? String(error);
    console.log(JSON.stringify(report));
  }
} else {
  console.log(JSON.stringify(report));
}
