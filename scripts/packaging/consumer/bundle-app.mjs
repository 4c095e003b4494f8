// @ts-check
/**
 * The app the package test bundles (esbuild ESM and CommonJS, webpack 5) and runs from several
 * places: a library that only registers and gates sites, plus the default import. It prints
 * one JSON line: `{ backend, nativeLoadError, sameDefault }`, or `{ error: { code, message } }`.
 */
import lens, { SpanRegistry, backend, managedSpan, nativeLoadError, spanGroup } from 'nemo-lens';

SpanRegistry.register('bundled', ['step']);
const STEP = spanGroup('step');
const dark = managedSpan(STEP, 'train_step', (span) => (span === undefined ? 'dark' : 'lit'));
if (dark !== 'dark' || STEP.enabled) throw new Error('a site before any spec must stay dark');
console.log(JSON.stringify({ backend, nativeLoadError: nativeLoadError?.message ?? null, sameDefault: lens.managedSpan === managedSpan }));
