/**
 * The Rust core through its napi-rs binding. napi-rs generates `native/binding.cjs`, which
 * tries `NAPI_RS_NATIVE_LIBRARY_PATH`, the local `nemo-lens.<platform>.node`, then the
 * `nemo-lens-<platform>` package; this wrapper only adds "keep the reason when none loads".
 */
import * as path from 'node:path';
import type { CoreState } from './types';

interface Binding {
  NativeState: new () => CoreState;
}

export type NativeLoad = { ok: true; create: () => CoreState } | { ok: false; error: Error };

export function loadNative(): NativeLoad {
  try {
    // Two levels up from both src/backends (tests) and dist/backends (the package).
    const binding = require(path.join(__dirname, '..', '..', 'native', 'binding.cjs')) as Binding;
    if (typeof binding.NativeState !== 'function') {
      return { ok: false, error: new Error('the native binding loaded but exports no NativeState class') };
    }
    return { ok: true, create: () => new binding.NativeState() };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error : new Error(String(error)) };
  }
}
