/**
 * `nemo-lens explain`, run as the command it is (a child process of src/cli.ts on the backend
 * this run forces), against fixture libraries that register groups when imported: a CommonJS
 * one and an ES module that shares a group with it.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

import test from 'ava';

import type { Explanation } from '../src/explain';

const ROOT = path.join(__dirname, '..');
const FIXTURES = path.join(__dirname, 'fixtures', 'explain');
const CLI = path.join(ROOT, 'src', 'cli.ts');

function run(args: readonly string[], env: Readonly<Record<string, string | undefined>> = {}) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NEMO_LENS_EXPLAIN_PACKAGE: path.join(ROOT, 'src', 'index.ts'), ...env };
  delete childEnv['NEMO_LENS_SPAN_GROUPS'];
  if (env['NEMO_LENS_SPAN_GROUPS'] !== undefined) childEnv['NEMO_LENS_SPAN_GROUPS'] = env['NEMO_LENS_SPAN_GROUPS'];
  delete childEnv['FORCE_COLOR'];
  const child = spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: FIXTURES, env: childEnv, encoding: 'utf8', timeout: 60_000 });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

const LIBRARIES = ['--require', './trainer.cjs', '-r', './rl.mjs'];

test('--json: enabled groups, owners, presets per namespace, pending with suggestions, warnings; exit 0', (t) => {
  const { status, stdout, stderr } = run(['explain', 'per_stpe,layer,elsewhere', ...LIBRARIES, '--json']);
  t.is(status, 0, stderr);
  t.is(stderr, '', 'warnings are in the report, not on stderr');
  const report = JSON.parse(stdout) as Explanation;
  t.is(report.spec, 'per_stpe,layer,elsewhere');
  t.is(report.specSource, 'argument');
  t.is(report.backend, process.env['NEMO_LENS_BACKEND'] === 'js' ? 'js' : 'native');
  t.deepEqual(report.namespaces, ['rl', 'trainer']);
  t.deepEqual(report.enabled, ['layer']);
  t.deepEqual(report.pending, [
    { token: 'per_stpe', suggestion: 'per_step' },
    { token: 'elsewhere', suggestion: null },
  ]);
  t.deepEqual(
    report.groups.find((g) => g.name === 'step'),
    { name: 'step', owners: ['rl', 'trainer'], shared: true, enabled: false },
  );
  t.deepEqual(
    report.groups.find((g) => g.name === 'layer'),
    { name: 'layer', owners: ['trainer'], shared: false, enabled: true },
  );
  t.deepEqual(
    report.presets.map((p) => `${p.namespace}/${p.name}: ${p.members.join(' ')}${p.unregistered.length ? ` !${p.unregistered.join(' ')}` : ''}`),
    ['rl/default: rollout', 'trainer/default: job', 'trainer/per_step: job step', 'trainer/debug: layer kernel !kernel'],
  );
  t.deepEqual(report.mergedPresets['default'], ['job', 'rollout']);
  t.deepEqual(
    report.warnings.map((w) => w.code),
    ['NEMO_LENS_PRESET_MEMBER_UNREGISTERED', 'NEMO_LENS_GROUP_SHARED', 'NEMO_LENS_SPEC_PENDING'],
  );
  t.regex(report.warnings[2]!.message, /Did you mean "per_step" for "per_stpe"\?$/);
});

test('text: a table without colour when stdout is not a terminal; --color forces it', (t) => {
  const plain = run(['explain', 'per_stpe,layer', ...LIBRARIES]);
  t.is(plain.status, 0, plain.stderr);
  t.false(plain.stdout.includes('\u001b['), 'no escape codes in a pipe');
  t.regex(plain.stdout, /^Enabled \(1\): layer$/m);
  t.regex(plain.stdout, /^ {2}step {5}rl, trainer \(shared\) {2}no$/m);
  t.regex(plain.stdout, /^ {2}trainer {4}per_step {2}job, step$/m);
  t.regex(plain.stdout, /^ {2}per_stpe {2}did you mean "per_step"\?$/m);
  const coloured = run(['explain', 'per_stpe,layer', ...LIBRARIES, '--color']);
  t.true(coloured.stdout.includes('\u001b[32mlayer\u001b[39m'), coloured.stdout);
  t.false(run(['explain', 'layer', ...LIBRARIES, '--color', '--no-color']).stdout.includes('\u001b['), '--no-color wins');
});

test('the spec comes from NEMO_LENS_SPAN_GROUPS, else "default"', (t) => {
  const fromEnv = JSON.parse(run(['explain', ...LIBRARIES, '--json'], { NEMO_LENS_SPAN_GROUPS: 'per_step' }).stdout) as Explanation;
  t.is(fromEnv.specSource, 'NEMO_LENS_SPAN_GROUPS');
  t.deepEqual(fromEnv.enabled, ['step', 'job']);
  t.deepEqual(fromEnv.pending, []);
  const blank = JSON.parse(run(['explain', ...LIBRARIES, '--json'], { NEMO_LENS_SPAN_GROUPS: '  ' }).stdout) as Explanation;
  t.is(blank.specSource, 'default');
  t.is(blank.spec, 'default');
  t.deepEqual(blank.enabled, ['job', 'rollout']);
});

test('no libraries: nothing enabled, said plainly, still exit 0', (t) => {
  const { status, stdout } = run(['explain', 'step']);
  t.is(status, 0);
  t.regex(stdout, /Enabled \(0\): nothing: no span will be emitted/);
  t.regex(stdout, /NEMO_LENS_NO_GROUPS_REGISTERED/);
});

test('a module that cannot be loaded exits 1; usage errors exit 2 with the usage', (t) => {
  const missing = run(['explain', 'step', '--require', './no-such-library.cjs']);
  t.is(missing.status, 1);
  t.regex(missing.stderr, /--require \.\/no-such-library\.cjs failed to load .*Cannot find module/);
  for (const args of [[], ['explian'], ['explain', 'a', 'b'], ['explain', '--bogus']]) {
    const usage = run(args);
    t.is(usage.status, 2, args.join(' '));
    t.regex(usage.stderr, /Usage: nemo-lens explain/);
  }
  const help = run(['explain', '--help']);
  t.is(help.status, 0);
  t.regex(help.stdout, /--require MODULE/);
});
