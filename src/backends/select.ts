/**
 * Backend choice: the Rust core when its binary loads, else the TypeScript twin.
 * `NEMO_LENS_BACKEND=js|native` forces one; forcing native without a loadable binary throws
 * with the load error as `cause`. A normal fallback prints nothing unless NEMO_LENS_DEBUG is
 * set; a fallback from a bundle is reported once (`bundleNotice`, warned by index.ts), since
 * there the platform package was most likely installed and the bundler hid it.
 */
import { readEnv, type Env } from '../env';
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
  /** One line for the realm's first load when a bundled copy fell back (else undefined). */
  readonly bundleNotice: string | undefined;
}

/** How to let the native core load from a bundle: the same advice for the warning and the error. */
export const BUNDLE_ADVICE =
  'mark nemo-lens as external in the bundler (esbuild --external:nemo-lens, webpack externals, Vite ssr.external, ' +
  'Next.js serverExternalPackages, bun build --external nemo-lens) and install it where the bundle runs, ' +
  'or install its platform package there';

export function selectBackend(env?: Env): BackendChoice {
  const raw = readEnv('NEMO_LENS_BACKEND', env);
  const forced = (raw ?? '').trim().toLowerCase();
  if (forced !== '' && forced !== 'js' && forced !== 'native') {
    throw new NemoLensError(
      'ERR_NEMO_LENS_INVALID_CONFIG',
      `nemo-lens: NEMO_LENS_BACKEND=${JSON.stringify(raw)} is not a backend; use "native", "js", or leave it unset.`,
    );
  }
  if (forced === 'js') return { backend: 'js', core: createTwin(), nativeLoadError: undefined, bundleNotice: undefined };

  const native = loadNative();
  if (native.ok) return { backend: 'native', core: native.create(), nativeLoadError: undefined, bundleNotice: undefined };
  if (forced === 'native') {
    const advice = native.bundled
      ? `This copy of nemo-lens is bundled: ${BUNDLE_ADVICE}; or unset NEMO_LENS_BACKEND to use the TypeScript core.`
      : 'Install the platform package (npm install re-run without --no-optional), build it with `npm run build:native`, or unset NEMO_LENS_BACKEND to use the TypeScript core.';
    throw new NemoLensError(
      'ERR_NEMO_LENS_NATIVE_UNAVAILABLE',
      `nemo-lens: NEMO_LENS_BACKEND=native, but the native core did not load: ${native.error.message}. ${advice}`,
      { cause: native.error },
    );
  }
  if (readEnv('NEMO_LENS_DEBUG', env)) {
    process.stderr.write(`nemo-lens: using the TypeScript core; the native core did not load: ${native.error.message}\n`);
  }
  const bundleNotice = native.bundled
    ? `nemo-lens: using the TypeScript core: ${native.error.message}. To load the native core, ${BUNDLE_ADVICE}; NEMO_LENS_BACKEND=js uses the TypeScript core without this warning.`
    : undefined;
  return { backend: 'js', core: createTwin(), nativeLoadError: native.error, bundleNotice };
}
