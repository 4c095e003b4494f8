/**
 * npm run test:package — the package as a user installs it, with no network.
 *
 *  1. npm/ matches `napi create-npm-dirs`; the checkout is built (the prepack check).
 *  2. `npm pack` the main package and the platform package of the target built here;
 *     publint and attw read the main tarball and must report nothing.
 *  3. A fresh project installs both tarballs offline: CommonJS, ESM and the conformance
 *     vectors run on the native core; TypeScript consumers type-check under node16,
 *     nodenext and bundler resolution, with this project's TypeScript and with 5.0.
 *  4. A fresh project installs the main package as the release publishes it (optional
 *     dependencies on every platform package, none of them available): the same consumers
 *     run on the TypeScript core, the fallback is silent unless NEMO_LENS_DEBUG is set, and
 *     NEMO_LENS_BACKEND=native fails with a clear error.
 *  5. In the field (packaging/bundles.ts, runtimes.ts, twice.ts): esbuild (ESM, CommonJS) and
 *     webpack bundles run in place, alone and beside only the platform package; Bun and Deno
 *     run a smoke test; the shipped declarations type-check with no Node types at all under
 *     TypeScript 5.0, this project's and 7, and legacy decorators compile and run; a library
 *     installed twice does not take its host down.
 *
 *  5. Both OpenTelemetry JS lines (2.x, 3.x): a host project with @opentelemetry/sdk-node of that
 *     line adds the tarballs from the registry (scripts/packaging/otel-lines.ts).
 *
 * NEMO_LENS_PACKAGE_TEST_NODES (paths of more Node binaries, separated like PATH) also runs the
 * CommonJS, ESM and conformance consumers of both projects under each of them; test:node-versions
 * uses it for the oldest Node that package.json's engines allows.
 *
 * The temporary directory is removed afterwards, or kept (and named) when a step fails or
 * NEMO_LENS_PACKAGE_TEST_KEEP=1.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkNpmDirs } from './check-npm-dirs';
import { packProblems } from './check-packable';
import { checkBundles } from './packaging/bundles';
import { createConsumer, type Installed } from './packaging/consumer';
import { NODE, run, type RunResult } from './packaging/exec';
import { lockedClosure, type LockedPackage } from './packaging/lockfile';
import { OTEL_LINES, testOtelLine } from './packaging/otel-lines';
import { packAsReleased, packMain, packPlatform, type Tarball } from './packaging/pack';
import { ROOT, binOf, binaryFile, builtTarget } from './packaging/paths';
import { checkRuntimes } from './packaging/runtimes';
import { checkInstalledTwice, libraryTarballs } from './packaging/twice';

const CONSUMER_SOURCES = path.join(__dirname, 'packaging', 'consumer');
const VECTORS = path.join(ROOT, '__test__', 'fixtures', 'conformance');

const timings: Array<[string, number]> = [];

function step<T>(title: string, body: () => T): T {
  process.stdout.write(`== ${title}\n`);
  const started = performance.now();
  const result = body();
  const ms = Math.round(performance.now() - started);
  timings.push([title, ms]);
  return result;
}

async function asyncStep(title: string, body: () => Promise<void>): Promise<void> {
  process.stdout.write(`== ${title}\n`);
  const started = performance.now();
  await body();
  timings.push([title, Math.round(performance.now() - started)]);
}

const log = (line: string) => console.log(`   ${line}`);

/** The environment of a consumer process: none of this shell's nemo-lens, napi-rs or Node settings. */
function consumerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(NEMO_LENS_|NAPI_RS_|OTEL_|NODE_OPTIONS$)/.test(key) && !/^(traceparent|tracestate|baggage)$/i.test(key)),
  );
  return { ...env, ...extra };
}

function node(dir: string, args: string[], extra: Record<string, string> = {}, binary = NODE): RunResult {
  const result = run(binary, args, { cwd: dir, env: consumerEnv(extra) });
  if (result.stdout.trim() !== '') console.log(result.stdout.trimEnd().replace(/^/gm, '   '));
  return result;
}

interface BackendReport {
  backend?: string;
  nativeLoadError?: string | null;
  error?: { code?: string; message?: string };
}

function loadBackend(dir: string, extra: Record<string, string> = {}): { report: BackendReport; stderr: string } {
  const result = run(NODE, ['backend.cjs'], { cwd: dir, env: consumerEnv(extra) });
  return { report: JSON.parse(result.stdout) as BackendReport, stderr: result.stderr };
}

function checkMainTarball(main: Tarball): void {
  const stray = main.files.filter((file) => file.endsWith('.node') || file.startsWith('__test__/') || file.startsWith('scripts/') || file.endsWith('.rs'));
  assert.deepEqual(stray, [], 'files the main tarball must not contain');
  for (const file of ['package.json', 'README.md', 'native/binding.cjs', 'dist/index.js', 'dist/index.d.ts', 'esm/index.mjs', 'esm/index.d.mts']) {
    assert.ok(main.files.includes(file), `the main tarball lacks ${file}`);
  }
}

function checkPlatformTarball(platform: Tarball, target: string): void {
  assert.deepEqual(platform.files, ['README.md', binaryFile(target), 'package.json'].sort(), 'files of the platform tarball');
}

function lint(main: Tarball): void {
  const publint = run(NODE, [binOf('publint'), 'run', main.file, '--strict'], { cwd: path.dirname(main.file) });
  assert.match(publint.stdout, /All good!/, `publint reported:\n${publint.stdout}`);
  console.log('   publint: All good!');
  // --no-definitely-typed: attw would otherwise look up @types/nemo-lens on the registry.
  const attw = run(NODE, [binOf('@arethetypeswrong/cli'), main.file, '--no-definitely-typed', '--no-color', '--no-emoji'], {
    cwd: path.dirname(main.file),
  });
  assert.match(attw.stdout, /No problems found/, `attw reported:\n${attw.stdout}`);
  console.log(`   attw: ${attw.stdout.match(/No problems found[^\n]*/)![0]}`);
}

/**
 * The oldest TypeScript 5.x a consumer may use and the newest (npm's latest, 7: the native
 * port, which loads no @types package unless `types` lists it), next to this project's own.
 */
const OLDEST_TYPESCRIPT = '5.0.4';
const NEWEST_TYPESCRIPT = '7.0.2';
let installedTsc: string[] | undefined;

/**
 * This project's tsc, TypeScript 5.0 and 7 installed beside the consumers on first use. (Not
 * devDependency aliases: their `tsc` commands would shadow the project's in node_modules/.bin.)
 */
function compilers(work: string): string[] {
  installedTsc ??= [OLDEST_TYPESCRIPT, NEWEST_TYPESCRIPT].map((version) => {
    const prefix = path.join(work, `typescript-${version}`);
    fs.mkdirSync(prefix, { recursive: true });
    run('npm', ['install', '--prefix', prefix, '--prefer-offline', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `typescript@${version}`], {
      cwd: prefix,
    });
    return path.join(prefix, 'node_modules', 'typescript', 'bin', 'tsc');
  });
  return [installedTsc[0]!, binOf('typescript'), installedTsc[1]!];
}

function typeCheck(dir: string): void {
  // The same TypeScript consumer as ESM (types.mts) and as CommonJS (types.cts).
  fs.copyFileSync(path.join(dir, 'types.mts'), path.join(dir, 'types.cts'));
  for (const tsc of compilers(path.dirname(dir))) {
    const version = run(NODE, [tsc, '--version'], { cwd: dir }).stdout.trim();
    for (const resolution of ['node16', 'nodenext', 'bundler']) {
      run(NODE, [tsc, '-p', `tsconfig.${resolution}.json`], { cwd: dir });
      console.log(`   tsc --noEmit (${version}), moduleResolution ${resolution}: no errors`);
    }
  }
}

/** Node's types in a shipped declaration: the NodeJS namespace, a `node` reference, a node: import. */
const NODE_TYPES = /\bNodeJS\.|reference\s+types=["']node["']|from\s+["']node:|import\(["']node:/;

/**
 * The shipped declarations with no Node types at all (this project has no @types/node):
 * `types: []`, lib es2022, skipLibCheck false, every module resolution the package supports
 * (node10 up to TypeScript 6; 7 removed it), each compiler. Then legacy decorators: checked by
 * each compiler, compiled by this project's and run.
 */
function standaloneTypes(dir: string): void {
  assert.ok(!fs.existsSync(path.join(dir, 'node_modules', '@types', 'node')), 'this project must not have @types/node');
  fs.copyFileSync(path.join(dir, 'standalone.ts'), path.join(dir, 'standalone.mts'));
  // The public declarations: every shipped file the compiler reads for the three entry points
  // (internal modules' declarations ship too, but no public type leads to them).
  const shipped = path.join(dir, 'node_modules', 'nemo-lens') + path.sep;
  const listed = run(NODE, [binOf('typescript'), '-p', 'tsconfig.standalone.json', '--listFilesOnly'], { cwd: dir }).stdout;
  const declarations = listed
    .split('\n')
    .map((file) => path.resolve(dir, file.trim()))
    .filter((file) => file.startsWith(shipped) && /\.d\.(c|m)?ts$/.test(file));
  assert.ok(declarations.length > 10, `the compiler read ${declarations.length} shipped declaration files`);
  const withNodeTypes = declarations.filter((file) => NODE_TYPES.test(fs.readFileSync(file, 'utf8'))).map((file) => file.slice(shipped.length));
  assert.deepEqual(withNodeTypes, [], 'public declarations that use Node types');
  log(`${declarations.length} public declaration files (what the entry points reach) name no Node type`);
  for (const tsc of compilers(path.dirname(dir))) {
    const version = run(NODE, [tsc, '--version'], { cwd: dir }).stdout.trim();
    const major = Number(/(\d+)\./.exec(version)?.[1]);
    const resolutions = major >= 7 ? ['node16', 'nodenext', 'bundler', 'skiplibcheck'] : ['node16', 'nodenext', 'bundler', 'node10', 'skiplibcheck'];
    for (const resolution of resolutions) {
      const config = resolution === 'node16' ? 'tsconfig.standalone.json' : `tsconfig.standalone-${resolution}.json`;
      run(NODE, [tsc, '-p', config], { cwd: dir });
    }
    run(NODE, [tsc, '-p', 'tsconfig.legacy.json', '--noEmit'], { cwd: dir });
    log(`${version}, types [], no @types/node, skipLibCheck false: ${resolutions.join(', ')} (node16 again with skipLibCheck) and experimentalDecorators: no errors`);
  }
  run(NODE, [binOf('typescript'), '-p', 'tsconfig.legacy.json'], { cwd: dir });
  node(dir, [path.join('legacy-out', 'legacy-decorators.js')]);
}

function withBinary(work: string, target: string, main: Tarball, platform: Tarball, locked: LockedPackage[], direct: LockedPackage[]): Installed {
  const dir = path.join(work, 'with-binary');
  const installed = step(`install ${path.basename(main.file)} + ${path.basename(platform.file)} offline`, () =>
    createConsumer({ dir, tarballs: [main.file, platform.file], direct, locked, files: consumerFiles() }),
  );
  step('with the binary: CommonJS, ESM, conformance', () => {
    assert.ok(fs.existsSync(path.join(dir, 'node_modules', `nemo-lens-${target}`, binaryFile(target))), 'the platform package is installed');
    node(dir, ['cjs.cjs', 'native']);
    node(dir, ['esm.mjs', 'native']);
    node(dir, ['--no-warnings', 'conformance.mjs', VECTORS]);
    const quiet = loadBackend(dir);
    assert.deepEqual(quiet.report, { backend: 'native', nativeLoadError: null });
    assert.equal(quiet.stderr, '', 'loading the native core prints nothing');
    const forced = loadBackend(dir, { NEMO_LENS_BACKEND: 'js' });
    assert.deepEqual(forced.report, { backend: 'js', nativeLoadError: null }, 'NEMO_LENS_BACKEND=js');
    console.log('   NEMO_LENS_BACKEND=js picks the TypeScript core even with the binary installed');
  });
  step('with the binary: TypeScript consumers', () => typeCheck(dir));
  step('with the binary: npx nemo-lens explain (the bin entry)', () => {
    const out = run('npx', ['--no-install', 'nemo-lens', 'explain', 'per_stpe,layer', '--require', './explain-library.cjs', '--json'], { cwd: dir });
    const report = JSON.parse(out.stdout) as { backend: string; enabled: string[]; pending: Array<{ token: string; suggestion: string | null }> };
    assert.equal(report.backend, 'native');
    assert.deepEqual(report.enabled, ['layer']);
    assert.deepEqual(report.pending, [{ token: 'per_stpe', suggestion: 'per_step' }]);
    console.log('   npx nemo-lens explain per_stpe,layer: enabled layer; "per_stpe": did you mean "per_step"?');
  });
  step('with the binary: Bun and Deno', () => checkRuntimes(dir, true, consumerEnv()).forEach(log));
  return installed;
}

/** Bundles of the with-binary project, also run beside a project that has only the platform package. */
async function bundlesWithBinary(work: string, platform: Tarball): Promise<void> {
  const platformOnly = path.join(work, 'platform-only');
  step(`install ${path.basename(platform.file)} alone offline`, () =>
    createConsumer({ dir: platformOnly, tarballs: [platform.file], direct: [], locked: [], files: [] }),
  );
  await asyncStep('with the binary: esbuild and webpack bundles', () =>
    checkBundles({ project: path.join(work, 'with-binary'), withBinary: true, platformOnly, env: consumerEnv, log }),
  );
}

function withoutBinary(work: string, target: string, released: Tarball, locked: LockedPackage[], direct: LockedPackage[]): Installed {
  const dir = path.join(work, 'without-binary');
  const installed = step(`install ${path.basename(released.file)} as released (optional platform packages unavailable) offline`, () =>
    createConsumer({ dir, tarballs: [released.file], direct, locked, files: consumerFiles() }),
  );
  step('without the binary: CommonJS, ESM, conformance, fallback notices', () => {
    assert.ok(!fs.existsSync(path.join(dir, 'node_modules', `nemo-lens-${target}`)), 'no platform package is installed');
    node(dir, ['cjs.cjs', 'js']);
    node(dir, ['esm.mjs', 'js']);
    node(dir, ['--no-warnings', 'conformance.mjs', VECTORS]);

    const quiet = loadBackend(dir);
    assert.equal(quiet.report.backend, 'js');
    assert.match(quiet.report.nativeLoadError ?? '', new RegExp(`nemo-lens-${target}`), 'nativeLoadError names the platform package it tried');
    assert.equal(quiet.stderr, '', 'a normal fallback prints nothing');
    console.log(`   silent fallback; nativeLoadError: ${quiet.report.nativeLoadError}`);

    const debug = loadBackend(dir, { NEMO_LENS_DEBUG: '1' });
    assert.equal(debug.report.backend, 'js');
    const lines = debug.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, `NEMO_LENS_DEBUG prints one line, got:\n${debug.stderr}`);
    assert.match(lines[0]!, /^nemo-lens: /);
    console.log(`   NEMO_LENS_DEBUG=1 prints one line: ${lines[0]!.slice(0, 100)}…`);

    const forced = loadBackend(dir, { NEMO_LENS_BACKEND: 'native' });
    assert.equal(forced.report.error?.code, 'ERR_NEMO_LENS_NATIVE_UNAVAILABLE', 'NEMO_LENS_BACKEND=native without a binary throws');
    console.log(`   NEMO_LENS_BACKEND=native throws ${forced.report.error?.code}`);
  });
  step('without the binary (and without @types/node): standalone types, legacy decorators', () => standaloneTypes(dir));
  step('without the binary: Bun and Deno', () => checkRuntimes(dir, false, consumerEnv()).forEach(log));
  return installed;
}

function installedTwice(work: string, released: Tarball, locked: LockedPackage[], direct: LockedPackage[]): void {
  const dir = path.join(work, 'installed-twice');
  const libraries = libraryTarballs(path.join(work, 'libraries'), path.join(work, 'tarballs'));
  step('a library installed twice (mylib 2.0.0, and 1.0.0 inside other)', () => {
    createConsumer({ dir, tarballs: [released.file, ...libraries], direct, locked, files: [] });
    checkInstalledTwice(dir, consumerEnv()).forEach(log);
  });
}

/** The runtime consumers of both projects under other Node binaries. */
function underOtherNodes(work: string): void {
  const binaries = (process.env['NEMO_LENS_PACKAGE_TEST_NODES'] ?? '').split(path.delimiter).filter((binary) => binary !== '');
  for (const binary of binaries) {
    const version = run(binary, ['--version'], { cwd: work }).stdout.trim();
    step(`under Node ${version}: CommonJS, ESM, conformance, with and without the binary`, () => {
      for (const [project, backend] of [['with-binary', 'native'], ['without-binary', 'js']] as const) {
        const dir = path.join(work, project);
        node(dir, ['cjs.cjs', backend], {}, binary);
        node(dir, ['esm.mjs', backend], {}, binary);
        node(dir, ['--no-warnings', 'conformance.mjs', VECTORS], {}, binary);
      }
    });
  }
}

function consumerFiles(): string[] {
  return fs.readdirSync(CONSUMER_SOURCES).map((file) => path.join(CONSUMER_SOURCES, file));
}

function find(locked: LockedPackage[], name: string): LockedPackage {
  const found = locked.find((pkg) => pkg.name === name);
  if (!found) throw new Error(`package-lock.json does not lock ${name}`);
  return found;
}

function kB(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} kB`;
}

async function main(): Promise<void> {
  const started = performance.now();
  const target = builtTarget();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'nemo-lens-package-test-'));
  let passed = false;
  try {
    step('npm/ matches napi create-npm-dirs; the build is complete and current', () => {
      checkNpmDirs();
      const problems = packProblems();
      assert.deepEqual(problems, [], 'run `npm run build` first');
    });
    const tarballs = path.join(work, 'tarballs');
    const [main, platform, released] = step('npm pack: main, platform, main as released', () => {
      const main = packMain(tarballs);
      const platform = packPlatform(target, tarballs);
      checkMainTarball(main);
      checkPlatformTarball(platform, target);
      return [main, platform, packAsReleased(main, path.join(work, 'released'))] as const;
    });
    step('publint and attw on the main tarball', () => lint(main));

    const locked = lockedClosure(['@types/node']);
    const api = find(locked, '@opentelemetry/api');
    const a = withBinary(work, target, main, platform, locked, [api, find(locked, '@types/node')]);
    await bundlesWithBinary(work, platform);
    const b = withoutBinary(work, target, released, lockedClosure(), [api]);
    await asyncStep('without the binary: esbuild and webpack bundles', () =>
      checkBundles({ project: path.join(work, 'without-binary'), withBinary: false, env: consumerEnv, log }),
    );
    installedTwice(work, released, lockedClosure(), [api]);
    underOtherNodes(work);
    for (const line of OTEL_LINES) {
      step(`beside a host on ${line.label}: install, one SDK copy, spans end to end`, () => {
        for (const text of testOtelLine(work, line, [main.file, platform.file])) console.log(`   ${text}`);
      });
    }

    console.log('\n== summary');
    console.log(`   ${path.basename(main.file)}: ${kB(main.size)} packed, ${kB(main.unpackedSize)} unpacked, ${main.files.length} files`);
    console.log(`   ${path.basename(platform.file)}: ${kB(platform.size)} packed, ${kB(platform.unpackedSize)} unpacked, ${platform.files.length} files`);
    console.log(`   offline install with the binary: ${a.ms} ms${a.primed ? ' (after priming the npm cache)' : ''}`);
    console.log(`   offline install without it: ${b.ms} ms${b.primed ? ' (after priming the npm cache)' : ''}`);
    for (const [title, ms] of timings) console.log(`   ${String(ms).padStart(6)} ms  ${title}`);
    console.log(`   ${String(Math.round(performance.now() - started)).padStart(6)} ms  total, Node ${process.version}`);
    passed = true;
  } finally {
    if (passed && !process.env['NEMO_LENS_PACKAGE_TEST_KEEP']) fs.rmSync(work, { recursive: true, force: true });
    else console.error(`\nkept ${work} for inspection`);
  }
}

main().catch((error: unknown) => {
  console.error(`\ntest:package failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
