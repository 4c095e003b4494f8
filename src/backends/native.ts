/**
 * The Rust core through its napi-rs binding. napi-rs generates `native/binding.cjs`, which
 * tries `NAPI_RS_NATIVE_LIBRARY_PATH`, the local `nemo-lens.<platform>.node`, then the
 * `nemo-lens-<platform>` package; this wrapper only adds "keep the reason when none loads",
 * as one line that names every place tried (the generated message blames an npm bug instead).
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
    return { ok: false, error: loadFailure(error) };
  }
}

/**
 * One line, the original error as its cause. The generated loader throws "Cannot find native
 * binding" with one error per attempt chained in `cause`, the last attempt first: name them in
 * the order tried. Any other error (say, native/binding.cjs not built) keeps its first line; a
 * require error adds its require stack on the following lines.
 */
function loadFailure(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  const firstLine = (message: string) => message.split('\n', 1)[0]!;
  if (!error.message.startsWith('Cannot find native binding')) return new Error(firstLine(error.message), { cause: error });
  const attempts: string[] = [];
  for (let cause = error.cause; cause instanceof Error; cause = cause.cause) attempts.unshift(firstLine(cause.message));
  return new Error(`no native binary for ${process.platform}-${process.arch} loaded (${attempts.join('; ')})`, { cause: error });
}
