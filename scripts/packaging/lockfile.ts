/**
 * The packages a consumer of the tarballs needs from the registry, at the versions this
 * checkout's package-lock.json pins: the runtime dependencies and peers of nemo-lens, plus any
 * extra roots (such as @types/node for a TypeScript consumer), with everything they depend on.
 */
import * as path from 'node:path';
import { ROOT, readJson } from './paths';

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

interface Lockfile {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
}

export interface LockedPackage {
  readonly name: string;
  readonly version: string;
}

export function lockedClosure(extraRoots: readonly string[] = []): LockedPackage[] {
  const lock = readJson<Lockfile>(path.join(ROOT, 'package-lock.json'));
  if (lock.lockfileVersion < 2) throw new Error(`package-lock.json has lockfileVersion ${lock.lockfileVersion}; npm 7 or newer writes 2 or 3.`);
  const roots = [...edges(lock.packages[''] ?? {}), ...extraRoots];
  const seen = new Map<string, LockedPackage>();
  const queue: Array<[from: string, name: string]> = roots.map((name) => ['', name]);
  for (let next = queue.shift(); next; next = queue.shift()) {
    const [from, name] = next;
    const location = locate(lock, from, name);
    if (location === undefined) {
      if (from === '') throw new Error(`package-lock.json has no ${name}: run \`npm install\`.`);
      continue; // an optional dependency this platform did not install
    }
    if (seen.has(location)) continue;
    const entry = lock.packages[location]!;
    seen.set(location, { name, version: entry.version ?? '' });
    for (const dependency of edges(entry)) queue.push([location, dependency]);
  }
  return [...seen.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** What a package needs installed beside it: dependencies, optional ones, and peers not marked optional. */
function edges(entry: LockEntry): string[] {
  const optionalPeers = new Set(Object.entries(entry.peerDependenciesMeta ?? {}).filter(([, meta]) => meta.optional).map(([peer]) => peer));
  const peers = Object.keys(entry.peerDependencies ?? {}).filter((peer) => !optionalPeers.has(peer));
  return [...Object.keys({ ...entry.dependencies, ...entry.optionalDependencies }), ...peers];
}

/** Node's lookup: `<from>/node_modules/<name>`, then each enclosing node_modules up to the root. */
function locate(lock: Lockfile, from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (dir === '') return undefined;
    const parent = dir.lastIndexOf('/node_modules/');
    dir = parent < 0 ? '' : dir.slice(0, parent);
  }
}
