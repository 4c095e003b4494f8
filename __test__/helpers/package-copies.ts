/**
 * Installs copies of this package, built from the current sources, into a temporary project:
 * `<root>/node_modules/<name>/{package.json, dist/, esm/, native/}` for each requested name,
 * with `@opentelemetry` linked to this repository's, so every copy shares one
 * `@opentelemetry/api` (as npm would dedupe a peer dependency) while nemo-lens itself is
 * duplicated. Used by copies.spec.ts and workers.spec.ts, which run plain-JS child processes
 * against the copies as a consumer would.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const REPO = path.join(__dirname, '..', '..');

export interface CopySpec {
  /** The package name (and directory under node_modules). */
  readonly name: string;
  /** Replace `src/version.ts` constants in the built copy (to simulate another release). */
  readonly version?: string;
  readonly stateFormat?: number;
}

/** Compile src/ once into `<root>/build` (CommonJS, no declarations: only what runs). */
function compile(root: string): string {
  const out = path.join(root, 'build');
  const tsc = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(
    process.execPath,
    [tsc, '-p', path.join(REPO, 'tsconfig.build.json'), '--outDir', out, '--declaration', 'false', '--declarationMap', 'false', '--sourceMap', 'false'],
    { stdio: 'pipe' },
  );
  return out;
}

function copyNative(target: string): void {
  const native = path.join(REPO, 'native');
  fs.mkdirSync(target, { recursive: true });
  if (!fs.existsSync(native)) return;
  for (const file of fs.readdirSync(native)) {
    if (file.endsWith('.node') || file === 'binding.cjs') fs.copyFileSync(path.join(native, file), path.join(target, file));
  }
}

/** A temporary project with one installed copy per spec; returns its root. */
export function installCopies(copies: readonly CopySpec[]): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nemo-lens-copies-'));
  const build = compile(root);
  const modules = path.join(root, 'node_modules');
  fs.mkdirSync(modules);
  fs.symlinkSync(path.join(REPO, 'node_modules', '@opentelemetry'), path.join(modules, '@opentelemetry'), 'dir');
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as Record<string, unknown>;
  for (const copy of copies) {
    const dir = path.join(modules, copy.name);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ ...manifest, name: copy.name, version: copy.version ?? manifest['version'] }, null, 2));
    fs.cpSync(build, path.join(dir, 'dist'), { recursive: true });
    if (fs.existsSync(path.join(REPO, 'esm'))) fs.cpSync(path.join(REPO, 'esm'), path.join(dir, 'esm'), { recursive: true });
    copyNative(path.join(dir, 'native'));
    if (copy.version !== undefined || copy.stateFormat !== undefined) {
      const versionFile = path.join(dir, 'dist', 'version.js');
      let text = fs.readFileSync(versionFile, 'utf8');
      if (copy.version !== undefined) text = text.replace(/VERSION = '[^']*'/, `VERSION = '${copy.version}'`);
      if (copy.stateFormat !== undefined) text = text.replace(/STATE_FORMAT = \d+/, `STATE_FORMAT = ${copy.stateFormat}`);
      fs.writeFileSync(versionFile, text);
    }
  }
  return root;
}

/** Run a CommonJS script in `root` (a fresh process, so a fresh realm) and parse the JSON it prints last. */
export function runScript<T>(root: string, file: string, source: string, env: NodeJS.ProcessEnv = {}): T {
  const script = path.join(root, file);
  fs.writeFileSync(script, source);
  const stdout = execFileSync(process.execPath, [script], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
  });
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as T;
}

export function removeProject(root: string): void {
  fs.rmSync(root, { recursive: true, force: true });
}
