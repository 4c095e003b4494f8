/**
 * Tarballs of this checkout: the main package, the platform package of the target built here
 * (its `.node` copied in a staging directory, never into npm/), and the main package as the
 * release publishes it (with the optionalDependencies `napi prepublish` adds).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { run } from './exec';
import { NATIVE_DIR, NPM_DIR, ROOT, binaryFile, platformTargets, readJson, rootManifest } from './paths';

export interface Tarball {
  /** Absolute path of the .tgz. */
  readonly file: string;
  readonly size: number;
  readonly unpackedSize: number;
  readonly files: readonly string[];
}

interface NpmPackEntry {
  filename: string;
  size: number;
  unpackedSize: number;
  files: Array<{ path: string }>;
}

/** `npm pack` of `dir` into `destination`. */
export function npmPack(dir: string, destination: string, options: { ignoreScripts?: boolean } = {}): Tarball {
  const args = ['pack', '--json', '--pack-destination', destination];
  if (options.ignoreScripts) args.push('--ignore-scripts');
  fs.mkdirSync(destination, { recursive: true });
  const { stdout } = run('npm', args, { cwd: dir });
  // Lifecycle scripts may print before npm's JSON array; the array is the last thing printed.
  const start = stdout.lastIndexOf('\n[') + 1;
  const [entry] = JSON.parse(stdout.slice(start)) as NpmPackEntry[];
  if (!entry) throw new Error(`npm pack in ${dir} reported no tarball:\n${stdout}`);
  return {
    file: path.join(destination, entry.filename),
    size: entry.size,
    unpackedSize: entry.unpackedSize,
    files: entry.files.map((file) => file.path).sort(),
  };
}

export function packMain(destination: string): Tarball {
  return npmPack(ROOT, destination);
}

/** The platform package of `target`, with the binary this checkout built. */
export function packPlatform(target: string, destination: string): Tarball {
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), `nemo-lens-${target}-`));
  try {
    for (const file of fs.readdirSync(path.join(NPM_DIR, target))) {
      fs.copyFileSync(path.join(NPM_DIR, target, file), path.join(staging, file));
    }
    fs.copyFileSync(path.join(NATIVE_DIR, binaryFile(target)), path.join(staging, binaryFile(target)));
    return npmPack(staging, destination);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** What `napi prepublish` adds to the main package.json: every platform package at this version. */
export function releaseOptionalDependencies(): Record<string, string> {
  const { version } = rootManifest();
  const dependencies: Record<string, string> = {};
  for (const target of platformTargets()) {
    const { name } = readJson<{ name: string }>(path.join(NPM_DIR, target, 'package.json'));
    dependencies[name] = version;
  }
  return dependencies;
}

/**
 * `main` repacked with the release's optionalDependencies into `destination` (which must differ
 * from the directory of `main`: the file name is the same).
 */
export function packAsReleased(main: Tarball, destination: string): Tarball {
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'nemo-lens-release-'));
  try {
    run('tar', ['-xzf', main.file, '-C', staging], { cwd: staging });
    const dir = path.join(staging, 'package');
    const manifestFile = path.join(dir, 'package.json');
    const manifest = readJson<Record<string, unknown>>(manifestFile);
    manifest['optionalDependencies'] = releaseOptionalDependencies();
    fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    return npmPack(dir, destination, { ignoreScripts: true });
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}
