/**
 * A fresh project that installs the tarballs with no network: `npm install --offline`, the
 * registry packages coming from the local npm cache at the versions package-lock.json pins.
 *
 * `npm ci` caches the tarballs but not metadata an offline install accepts (npm then reports
 * ENOTCACHED, or ERESOLVE for a peer it cannot see), so when the offline install fails the
 * cache is primed (`npm cache add` of every locked package, which needs the registry) and the
 * install retried, still offline; a second failure is the real one. The registry packages are
 * pinned with `overrides`, so a newer release of any of them cannot make the install look for
 * a tarball the cache does not hold.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CommandError, run } from './exec';
import type { LockedPackage } from './lockfile';

export interface ConsumerSpec {
  readonly dir: string;
  /** Tarballs to install. */
  readonly tarballs: readonly string[];
  /** Registry packages to install directly (at their locked versions). */
  readonly direct: readonly LockedPackage[];
  /** Every registry package the install may need, at its locked version. */
  readonly locked: readonly LockedPackage[];
  /** Files copied into the project. */
  readonly files: readonly string[];
}

export interface Installed {
  /** Milliseconds of the offline install that succeeded. */
  readonly ms: number;
  /** Whether the npm cache had to be primed first. */
  readonly primed: boolean;
}

export function createConsumer(spec: ConsumerSpec): Installed {
  fs.mkdirSync(spec.dir, { recursive: true });
  refuseEnclosingNodeModules(spec.dir);
  const directNames = new Set(spec.direct.map((pkg) => pkg.name));
  const overrides = Object.fromEntries(uniqueVersions(spec.locked).filter((pkg) => !directNames.has(pkg.name)).map((pkg) => [pkg.name, pkg.version]));
  const manifest = { name: 'nemo-lens-package-test-consumer', version: '0.0.0', private: true, overrides };
  fs.writeFileSync(path.join(spec.dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const file of spec.files) fs.copyFileSync(file, path.join(spec.dir, path.basename(file)));

  const args = ['install', '--offline', '--no-audit', '--no-fund', ...spec.tarballs, ...spec.direct.map(specifier)];
  let first: CommandError;
  try {
    return { ms: run('npm', args, { cwd: spec.dir }).ms, primed: false };
  } catch (error) {
    if (!(error instanceof CommandError)) throw error;
    first = error;
  }
  primeCache(spec.locked, spec.dir, first);
  return { ms: run('npm', args, { cwd: spec.dir }).ms, primed: true };
}

function primeCache(packages: readonly LockedPackage[], cwd: string, why: CommandError): void {
  try {
    run('npm', ['cache', 'add', ...packages.map(specifier)], { cwd });
  } catch (error) {
    throw new Error(
      `the offline install failed, and priming the npm cache from the registry (to retry it) failed too.\n` +
        `The install: ${why.message}\nThe priming: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

function specifier(pkg: LockedPackage): string {
  return `${pkg.name}@${pkg.version}`;
}

/** Packages locked at one version only: a name locked at several cannot take one global override. */
function uniqueVersions(packages: readonly LockedPackage[]): LockedPackage[] {
  const versions = new Map<string, Set<string>>();
  for (const pkg of packages) versions.set(pkg.name, (versions.get(pkg.name) ?? new Set()).add(pkg.version));
  return packages.filter((pkg) => versions.get(pkg.name)!.size === 1);
}

/** A node_modules above the consumer would let Node find packages the install did not provide. */
function refuseEnclosingNodeModules(dir: string): void {
  for (let parent = path.dirname(path.resolve(dir)); ; parent = path.dirname(parent)) {
    if (fs.existsSync(path.join(parent, 'node_modules'))) {
      throw new Error(`${parent}/node_modules exists, so a consumer in ${dir} could resolve packages it did not install; set TMPDIR elsewhere.`);
    }
    if (path.dirname(parent) === parent) return;
  }
}
