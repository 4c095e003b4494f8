/**
 * The benchmarks measure the package as it ships: the compiled `dist/` (the runner rebuilds it
 * first), loaded with a plain `require`, and the functions bound to local consts the way a
 * consumer's `const { managedSpan } = require('nemo-lens')` does. Only the harness itself is
 * TypeScript run through tsx.
 */
import * as path from 'node:path';

import type * as NemoLens from '../../src/index';
import type * as JsStateModule from '../../src/backends/js/state';
import type * as NativeModule from '../../src/backends/native';
import type * as GlobalModule from '../../src/global';

export const ROOT = path.resolve(__dirname, '..', '..');
/**
 * The compiled package under test. bench/run.ts compiles src/ into a private snapshot (with a
 * copy of native/) and passes it down as BENCH_DIST, so a \`npm run build\` elsewhere during a
 * run (npm test rebuilds dist/ and native/) cannot change the code under measurement halfway.
 */
export function distDir(): string {
  return process.env['BENCH_DIST'] ?? path.join(ROOT, 'dist');
}

export type NemoLensModule = typeof NemoLens;

export function loadNemoLens(): NemoLensModule {
  return require(path.join(distDir(), 'index.js')) as NemoLensModule;
}

export function loadJsState(): typeof JsStateModule {
  return require(path.join(distDir(), 'backends', 'js', 'state.js')) as typeof JsStateModule;
}

export function loadNativeModule(): typeof NativeModule {
  return require(path.join(distDir(), 'backends', 'native.js')) as typeof NativeModule;
}

/** The realm state (the gate table itself), for proposals that read it the way gate.ts does. */
export function loadShared(): (typeof GlobalModule)['shared'] {
  return (require(path.join(distDir(), 'global.js')) as typeof GlobalModule).shared;
}
