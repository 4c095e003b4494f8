/** Where things are in this checkout, and the facts about it the packaging scripts share. */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
export const NATIVE_DIR = path.join(ROOT, 'native');
export const NPM_DIR = path.join(ROOT, 'npm');
export const BINARY_NAME = 'nemo-lens';

export interface RootManifest {
  name: string;
  version: string;
  optionalDependencies?: Record<string, string>;
  [key: string]: unknown;
}

export function readJson<T>(file: string): T {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
}

export function rootManifest(): RootManifest {
  return readJson<RootManifest>(path.join(ROOT, 'package.json'));
}

/** The committed platform package directories (`npm/<target>`), sorted. */
export function platformTargets(): string[] {
  return fs
    .readdirSync(NPM_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/**
 * The target whose `.node` file this checkout built (`npm run build:native` writes exactly one,
 * `native/nemo-lens.<target>.node`). Throws, saying what to do, when there is none or several.
 */
export function builtTarget(): string {
  const prefix = `${BINARY_NAME}.`;
  const built = fs.existsSync(NATIVE_DIR)
    ? fs
        .readdirSync(NATIVE_DIR)
        .filter((file) => file.startsWith(prefix) && file.endsWith('.node'))
        .map((file) => file.slice(prefix.length, -'.node'.length))
    : [];
  if (built.length === 0) {
    throw new Error(`no native build in ${NATIVE_DIR}: run \`npm run build\` first.`);
  }
  const ours = built.filter((target) => target.startsWith(`${process.platform}-${process.arch}`));
  if (ours.length !== 1) {
    throw new Error(`expected one ${process.platform}-${process.arch} build in ${NATIVE_DIR}, found: ${built.join(', ')}. Remove the stale ones.`);
  }
  const target = ours[0]!;
  if (!fs.existsSync(path.join(NPM_DIR, target, 'package.json'))) {
    throw new Error(`native/ holds a ${target} build, but npm/${target}/package.json does not exist: add the target to napi.targets.`);
  }
  return target;
}

export function binaryFile(target: string): string {
  return `${BINARY_NAME}.${target}.node`;
}

/** The command-line entry of a dev dependency, run with `node` so that no shell or PATH is involved. */
export function binOf(packageName: string): string {
  const manifestFile = path.join(ROOT, 'node_modules', packageName, 'package.json');
  if (!fs.existsSync(manifestFile)) throw new Error(`${packageName} is not installed: run \`npm ci\`.`);
  const { bin } = readJson<{ bin?: string | Record<string, string> }>(manifestFile);
  const entry = typeof bin === 'string' ? bin : Object.values(bin ?? {})[0];
  if (entry === undefined) throw new Error(`${packageName} declares no command.`);
  return path.join(ROOT, 'node_modules', packageName, entry);
}
