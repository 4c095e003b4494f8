/**
 * Finding the napi-rs loader (`native/binding.cjs`) or the platform package, in the package
 * and from a bundle.
 *
 * In the package (the usual case) this file is `dist/backends/find-binding.js` and the loader
 * is two levels up, required through `module.require`: Node's own require, which bundlers do
 * not parse (a `require(expression)` makes webpack warn "Critical dependency" and esbuild's ESM
 * output throw "Dynamic require ... is not supported"), and no `node:path` import at load
 * time, which crashed esbuild ESM bundles at import.
 *
 * In a bundle (esbuild, webpack, rollup, Vite SSR, Next.js, bun build) there is no package
 * around this file: `module` is the bundler's object, `__dirname` is missing, the bundle's own
 * directory or the build machine's path. The native core can still load when the bundle's
 * host has it installed, so it is looked for at run time with a require made by
 * `module.createRequire` (reached through `process.getBuiltinModule`, Node 20.16+, which no
 * bundler rewrites), from the bundle's file, the entry script and the working directory:
 * first an installed `nemo-lens` of this version (its own loader then does the platform
 * detection), then the platform package `nemo-lens-<platform>` of this version.
 * `__test__/bundlers` and the package test build real bundles to hold this in place.
 */
import { readEnv } from '../env';
import { VERSION } from '../version';

/** What `native/binding.cjs` exports that the wrapper uses (see native.ts). */
export type BindingModule = Record<string, unknown>;

export type FoundBinding =
  | { readonly ok: true; readonly binding: BindingModule; readonly bundled: boolean }
  | { readonly ok: false; readonly error: Error; readonly bundled: boolean };

type Require = (id: string) => unknown;
interface ResolvingRequire extends Require {
  resolve(id: string): string;
}

/** The CommonJS `module` of this file when Node (or Bun, or Deno) loaded it, else undefined. */
function ownRequire(): Require | undefined {
  try {
    const self = module as { require?: unknown };
    return typeof self.require === 'function' ? (self.require.bind(module) as Require) : undefined;
  } catch {
    return undefined; // no `module` at all (an ESM bundle that dropped the CommonJS wrapper)
  }
}

function ownDirectory(): string | undefined {
  try {
    return typeof __dirname === 'string' && __dirname !== '' ? __dirname : undefined;
  } catch {
    return undefined;
  }
}

/** `require(id)` failed because `id` itself is missing (not something it requires in turn). */
function isNotFound(error: unknown, id: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'MODULE_NOT_FOUND' && typeof message === 'string' && message.split('\n', 1)[0]!.includes(id);
}

export function findBinding(): FoundBinding {
  const req = ownRequire();
  const dir = ownDirectory();
  if (req !== undefined && dir !== undefined) {
    // Two levels up from both src/backends (tests) and dist/backends (the package).
    const loader = `${dir}/../../native/binding.cjs`;
    try {
      return { ok: true, binding: req(loader) as BindingModule, bundled: false };
    } catch (error) {
      // The package's loader is there but found no binary: its error says what it tried.
      if (!isNotFound(error, loader)) return { ok: false, error: asError(error), bundled: false };
    }
  }
  return findFromBundle();
}

/** `require` from `file` (a path), through Node's module API; undefined when out of reach. */
function requireFrom(file: string): ResolvingRequire | undefined {
  const getBuiltin = (globalThis.process as { getBuiltinModule?: (id: string) => unknown } | undefined)?.getBuiltinModule;
  if (typeof getBuiltin !== 'function') return undefined;
  const moduleApi = getBuiltin('node:module') as { createRequire?: (from: string) => ResolvingRequire } | undefined;
  return moduleApi?.createRequire?.(file);
}

/** Files to resolve from: this bundle, the entry script, the working directory. */
function bases(): string[] {
  const found: string[] = [];
  const absolute = (file: unknown): file is string => typeof file === 'string' && (file.startsWith('/') || /^[A-Za-z]:[\\/]/.test(file));
  const add = (file: string) => {
    if (!found.includes(file)) found.push(file);
  };
  try {
    if (typeof __filename === 'string' && absolute(__filename)) add(__filename);
  } catch {
    // an ESM bundle: no __filename
  }
  const proc = globalThis.process as { argv?: unknown[]; cwd?: () => string } | undefined;
  const entry = proc?.argv?.[1];
  if (absolute(entry)) add(entry);
  try {
    const cwd = proc?.cwd?.();
    if (absolute(cwd)) add(`${cwd}/`);
  } catch {
    // a refused cwd read (Deno without --allow-read)
  }
  return found;
}

/** The platform packages that may hold this machine's binary, most likely first. */
export function platformPackages(platform: string, arch: string): string[] {
  if (platform === 'linux') return [`nemo-lens-linux-${arch}-gnu`, `nemo-lens-linux-${arch}-musl`];
  if (platform === 'win32') return [`nemo-lens-win32-${arch}-msvc`];
  return [`nemo-lens-${platform}-${arch}`];
}

function findFromBundle(): FoundBinding {
  const tried: string[] = [];
  const override = readEnv('NAPI_RS_NATIVE_LIBRARY_PATH');
  const from = bases();
  const first = from[0];
  const req = first === undefined ? undefined : requireFrom(first);
  if (req === undefined) {
    const why =
      first === undefined
        ? 'no file or directory to look from'
        : `this runtime has no process.getBuiltinModule (Node ${globalThis.process?.version ?? '?'}; 20.16 or newer has it)`;
    return notFound([`the native core could not be looked for: ${why}`]);
  }
  if (override !== undefined && override !== '') {
    try {
      return { ok: true, binding: req(override) as BindingModule, bundled: true };
    } catch (error) {
      tried.push(`NAPI_RS_NATIVE_LIBRARY_PATH=${override}: ${firstLine(error)}`);
    }
  }
  const requires = from.map((file) => ({ file, req: requireFrom(file)! }));
  const { platform, arch } = globalThis.process;
  const packages = ['nemo-lens', ...platformPackages(platform, arch)];
  for (const name of packages) {
    const where: string[] = [];
    for (const { file, req } of requires) {
      let manifest: string;
      try {
        manifest = req.resolve(`${name}/package.json`);
      } catch {
        where.push(file);
        continue;
      }
      const version = (req(manifest) as { version?: unknown }).version;
      if (version !== VERSION) {
        tried.push(`${name} ${String(version)} at ${manifest.slice(0, -'/package.json'.length)} (this bundle is ${VERSION})`);
        break;
      }
      const id = name === 'nemo-lens' ? `${manifest.slice(0, -'package.json'.length)}native/binding.cjs` : name;
      try {
        return { ok: true, binding: req(id) as BindingModule, bundled: true };
      } catch (error) {
        // The generated loader's text for "no binary" blames an npm bug; say what it means here.
        const why = firstLine(error).startsWith('Cannot find native binding') ? 'installed without a binary for this platform' : firstLine(error);
        tried.push(`${name}: ${why}`);
      }
      break;
    }
    if (where.length === requires.length) tried.push(`${name}: not installed`);
  }
  return notFound([`looked from ${from.join(', ')}`, ...tried]);
}

function notFound(tried: string[]): FoundBinding {
  return { ok: false, error: new Error(`the native core was not found from this bundle (${tried.join('; ')})`), bundled: true };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function firstLine(error: unknown): string {
  return asError(error).message.split('\n', 1)[0]!;
}
