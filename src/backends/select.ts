/**
 * Backend choice: the Rust core when its binary loads, else the TypeScript twin.
 * `NEMO_LENS_BACKEND=js|native` forces one; forcing native without a loadable binary throws
 * with the load error as `cause`. A normal fallback prints nothing unless NEMO_LENS_DEBUG is set.
 */
import { NemoLensError } from '../errors';
import type * as Twin from './js/state';
import { loadNative } from './native';
import type { CoreState } from './types';

/** The twin loads only when it is used: a process on the native core never parses it. */
function createTwin(): CoreState {
  const { JsState } = require('./js/state') as typeof Twin;
  return new JsState();
}

export type BackendName = 'native' | 'js';

export interface BackendChoice {
  readonly backend: BackendName;
  readonly core: CoreState;
  /** Why the native core did not load (undefined when it did, or when js was forced). */
  readonly nativeLoadError: Error | undefined;
}

export function selectBackend(env: NodeJS.ProcessEnv = process.env): BackendChoice {
  const forced = (env['NEMO_LENS_BACKEND'] ?? '').trim().toLowerCase();
  if (forced !== '' && forced !== 'js' && forced !== 'native') {
    throw new NemoLensError(
      'ERR_NEMO_LENS_INVALID_CONFIG',
      `nemo-lens: NEMO_LENS_BACKEND=${JSON.stringify(env['NEMO_LENS_BACKEND'])} is not a backend; use "native", "js", or leave it unset.`,
    );
  }
  if (forced === 'js') return { backend: 'js', core: createTwin(), nativeLoadError: undefined };

  const native = loadNative();
  if (native.ok) return { backend: 'native', core: native.create(), nativeLoadError: undefined };
  if (forced === 'native') {
    throw new NemoLensError(
      'ERR_NEMO_LENS_NATIVE_UNAVAILABLE',
      `nemo-lens: NEMO_LENS_BACKEND=native, but the native core did not load: ${native.error.message}. ` +
        'Install the platform package (npm install re-run without --no-optional), build it with `npm run build:native`, or unset NEMO_LENS_BACKEND to use the TypeScript core.',
      { cause: native.error },
    );
  }
  if (env['NEMO_LENS_DEBUG']) {
    process.stderr.write(`nemo-lens: using the TypeScript core; the native core did not load: ${native.error.message}\n`);
  }
  return { backend: 'js', core: createTwin(), nativeLoadError: native.error };
}
