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
export const DIST = path.join(ROOT, 'dist');

export type NemoLensModule = typeof NemoLens;

export function loadNemoLens(): NemoLensModule {
  return require(path.join(DIST, 'index.js')) as NemoLensModule;
}

export function loadJsState(): typeof JsStateModule {
  return require(path.join(DIST, 'backends', 'js', 'state.js')) as typeof JsStateModule;
}

export function loadNativeModule(): typeof NativeModule {
  return require(path.join(DIST, 'backends', 'native.js')) as typeof NativeModule;
}

/** The realm state (the gate table itself), for proposals that read it the way gate.ts does. */
export function loadShared(): (typeof GlobalModule)['shared'] {
  return (require(path.join(DIST, 'global.js')) as typeof GlobalModule).shared;
}
