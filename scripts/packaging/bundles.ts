/**
 * Real bundles of an app that imports the installed package (consumer/bundle-app.mjs), built
 * with this checkout's esbuild (ESM and CommonJS output, and ESM with the README's `require`
 * banner), webpack 5 and bun build, then run under Node where a bundle really runs: beside the
 * node_modules it was built from, alone in an empty directory, and in a directory that has
 * only the platform package installed.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NODE, run } from './exec';
import { ROOT } from './paths';

export interface Bundle {
  readonly name: string;
  /** The bundle file, inside the consumer project it was built in. */
  readonly file: string;
  /** Warnings the bundler printed. */
  readonly warnings: readonly string[];
  /** Whether the node_modules it was built from are still beside it (bun build's copy is removed). */
  readonly besideItsNodeModules: boolean;
  /** What `setupTelemetry` does in it: loads the SDK, or refuses with a coded error. */
  readonly setup: 'ok' | 'ERR_NEMO_LENS_BUNDLE_WITHOUT_REQUIRE';
}

const ESBUILD = require.resolve('esbuild', { paths: [ROOT] });
const WEBPACK = require.resolve('webpack', { paths: [ROOT] });
const BUN = path.join(ROOT, 'node_modules', '.bin', 'bun');
/** The README's recipe for an ESM bundle that sets telemetry up: a `require` for the SDK. */
const REQUIRE_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/** Build the app of `project` with each bundler into `<project>/bundles/`. */
export async function buildBundles(project: string, options: { external?: boolean } = {}): Promise<Bundle[]> {
  const outdir = path.join(project, options.external ? 'bundles-external' : 'bundles');
  const entry = path.join(project, 'bundle-app.mjs');
  const esbuild = require(ESBUILD) as typeof import('esbuild');
  const bundles: Bundle[] = [];
  const variants = options.external
    ? [{ format: 'esm' as const, banner: false }]
    : [
        { format: 'esm' as const, banner: false },
        { format: 'esm' as const, banner: true },
        { format: 'cjs' as const, banner: false },
      ];
  for (const { format, banner } of variants) {
    const file = path.join(outdir, `esbuild-${format}${banner ? '-banner' : ''}.${format === 'esm' ? 'mjs' : 'cjs'}`);
    const result = await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format,
      outfile: file,
      logLevel: 'silent',
      absWorkingDir: project,
      external: options.external ? ['nemo-lens'] : [],
      ...(banner ? { banner: { js: REQUIRE_BANNER } } : {}),
    });
    const name = `esbuild --format=${format}${banner ? ' --banner:js=<createRequire>' : ''}${options.external ? ' --external:nemo-lens' : ''}`;
    const setup = format === 'esm' && !banner && !options.external ? 'ERR_NEMO_LENS_BUNDLE_WITHOUT_REQUIRE' : 'ok';
    bundles.push({ name, file, warnings: result.warnings.map((w) => w.text), besideItsNodeModules: true, setup });
  }
  if (!options.external) bundles.push(await webpackBundle(project, entry, outdir), bunBundle(project));
  return bundles;
}

/**
 * bun build writes the build machine's path of each bundled file into the bundle (`__dirname`),
 * so it is built in a copy of the project whose node_modules is then removed, as on another
 * machine.
 */
function bunBundle(project: string): Bundle {
  const copy = `${project}-bun-build`;
  fs.rmSync(copy, { recursive: true, force: true });
  fs.mkdirSync(copy);
  for (const entry of ['package.json', 'bundle-app.mjs', 'node_modules']) {
    fs.cpSync(path.join(project, entry), path.join(copy, entry), { recursive: true, verbatimSymlinks: true });
  }
  const file = path.join(copy, 'bundles', 'bun.mjs');
  const built = run(BUN, ['build', 'bundle-app.mjs', '--target=node', `--outfile=${file}`], { cwd: copy, env: { ...process.env, DO_NOT_TRACK: '1' } });
  fs.rmSync(path.join(copy, 'node_modules'), { recursive: true, force: true });
  const warnings = built.stderr.split('\n').filter((line) => /warn/i.test(line));
  return { name: 'bun build --target=node', file, warnings, besideItsNodeModules: false, setup: 'ok' };
}

async function webpackBundle(project: string, entry: string, outdir: string): Promise<Bundle> {
  const webpack = require(WEBPACK) as typeof import('webpack');
  const stats = await new Promise<import('webpack').Stats>((resolve, reject) => {
    webpack(
      {
        mode: 'production',
        target: 'node',
        context: project,
        entry,
        output: { path: outdir, filename: 'webpack.cjs' },
        optimization: { minimize: false },
        infrastructureLogging: { level: 'error' },
      },
      (error, result) => (error || !result ? reject(error ?? new Error('webpack returned no stats')) : resolve(result)),
    );
  });
  const info = stats.toJson({ all: false, errors: true, warnings: true });
  assert.deepEqual(info.errors?.map((e) => e.message) ?? [], [], 'webpack errors');
  const warnings = info.warnings?.map((w) => w.message) ?? [];
  return { name: 'webpack 5 (target node)', file: path.join(outdir, 'webpack.cjs'), warnings, besideItsNodeModules: true, setup: 'ok' };
}

export interface BundleRun {
  readonly report: { backend?: string; nativeLoadError?: string | null; sameDefault?: boolean; setup?: string; error?: { code?: string; message?: string } };
  /** stderr lines that mention nemo-lens. */
  readonly notices: readonly string[];
}

/** Run `bundle` copied into `dir` (or where it was built when `dir` is undefined). */
export function runBundle(bundle: Bundle, dir: string | undefined, env: NodeJS.ProcessEnv, args: string[] = []): BundleRun {
  let file = bundle.file;
  if (dir !== undefined) {
    fs.mkdirSync(dir, { recursive: true });
    file = path.join(dir, path.basename(bundle.file));
    fs.copyFileSync(bundle.file, file);
  }
  const result = run(NODE, [file, ...args], { cwd: path.dirname(file), env, allowFailure: true });
  const last = result.stdout.trim().split('\n').pop() ?? '';
  const notices = result.stderr.split('\n').filter((line) => /nemo-lens|NEMO_LENS/.test(line));
  // An import that throws (NEMO_LENS_BACKEND=native without a binary) prints Node's report of the error instead.
  if (result.status !== 0) return { report: { error: { message: result.stderr } }, notices };
  try {
    return { report: JSON.parse(last) as BundleRun['report'], notices };
  } catch {
    throw new Error(`${bundle.name} in ${path.dirname(file)} printed no report:\n${result.stdout}${result.stderr}`);
  }
}

export interface BundleCheck {
  /** The consumer project the bundles are built in (the package is installed there). */
  readonly project: string;
  /** Whether that project has the platform package. */
  readonly withBinary: boolean;
  /** A directory with only the platform package installed (with-binary project only). */
  readonly platformOnly?: string;
  /** The environment of a consumer process, plus `extra`. */
  readonly env: (extra?: Record<string, string>) => NodeJS.ProcessEnv;
  readonly log: (line: string) => void;
}

const NOTICE = 'NEMO_LENS_NATIVE_NOT_BUNDLED';

/** One warning line that says why the native core was not found and how to mark the package external. */
function assertOneNotice(run: BundleRun, label: string): void {
  assert.equal(run.notices.length, 1, `${label}: one nemo-lens line on stderr, got:\n${run.notices.join('\n')}`);
  assert.match(run.notices[0]!, new RegExp(`\\[${NOTICE}\\].*not found from this bundle.*--external:nemo-lens.*serverExternalPackages`), label);
}

export async function checkBundles(check: BundleCheck): Promise<void> {
  const { project, env, log } = check;
  const bundles = await buildBundles(project);
  for (const bundle of bundles) {
    const label = bundle.name;
    const warnings = bundle.warnings.filter((w) => /find-binding|backends\/native/.test(w));
    assert.deepEqual(warnings, [], `${label}: warnings about the native loader`);

    const inPlace = runBundle(bundle, undefined, env(), ['setup']);
    assert.equal(inPlace.report.sameDefault, true, `${label}: the default import holds the named exports`);
    assert.equal(inPlace.report.setup, bundle.setup, `${label}: setupTelemetry`);
    if (!bundle.besideItsNodeModules) {
      assert.equal(inPlace.report.backend, 'js', `${label}, built on a machine whose node_modules is gone: TypeScript core`);
      assertOneNotice(inPlace, `${label}, built elsewhere`);
    } else if (check.withBinary) {
      assert.deepEqual([inPlace.report.backend, inPlace.notices], ['native', []], `${label}, beside its node_modules: native core, silent`);
    } else {
      assert.equal(inPlace.report.backend, 'js', `${label}, no platform package: TypeScript core`);
      assertOneNotice(inPlace, `${label}, no platform package`);
    }

    // Beside the project, not in it: Node would find the project's node_modules from inside.
    const alone = `${project}-bundle-alone`;
    const lone = runBundle(bundle, alone, env());
    assert.equal(lone.report.backend, 'js', `${label}, alone: TypeScript core`);
    assertOneNotice(lone, `${label}, alone`);
    const quiet = runBundle(bundle, alone, env({ NEMO_LENS_BACKEND: 'js' }));
    assert.deepEqual([quiet.report.backend, quiet.notices], ['js', []], `${label}, alone, NEMO_LENS_BACKEND=js: silent`);
    const forced = runBundle(bundle, alone, env({ NEMO_LENS_BACKEND: 'native' }));
    assert.match(forced.report.error?.message ?? '', /ERR_NEMO_LENS_NATIVE_UNAVAILABLE/, `${label}, alone, NEMO_LENS_BACKEND=native throws`);
    assert.match(forced.report.error?.message ?? '', /bundled: mark nemo-lens as external/, `${label}: NEMO_LENS_BACKEND=native advice fits a bundle`);

    let platformOnly = '';
    if (check.platformOnly !== undefined) {
      const beside = runBundle(bundle, check.platformOnly, env());
      assert.deepEqual([beside.report.backend, beside.notices], ['native', []], `${label}, beside the platform package only: native core`);
      platformOnly = '; beside only the platform package: native';
    }
    const built = bundle.warnings.length === 0 ? 'no warnings' : `${bundle.warnings.length} warning(s) not about the loader`;
    log(`${label} (${built}): in place ${inPlace.report.backend}, setup ${inPlace.report.setup}; alone js with one warning line${platformOnly}`);
  }
  if (check.withBinary) {
    const [external] = await buildBundles(project, { external: true });
    const inPlace = runBundle(external!, undefined, env());
    assert.deepEqual([inPlace.report.backend, inPlace.notices], ['native', []], 'esbuild --external:nemo-lens: native core');
    log(`${external!.name}: native, silent`);
  }
  log(`first line of the warning: ${runBundle(bundles[0]!, `${project}-bundle-alone`, env()).notices[0]!.slice(0, 160)}…`);
}
