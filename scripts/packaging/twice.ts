/**
 * A consumer library installed twice, as npm really lays it out: `mylib` 2.0.0 at the top of
 * node_modules, and 1.0.0 bundled inside `other` (bundleDependencies), each registering the
 * namespace `mylib` at import. With `allowOverride: true` (what README "In a library"
 * recommends) the host imports both and runs; with the registration as the reference does it
 * (no option), the second import throws ERR_NEMO_LENS_NAMESPACE_REGISTERED: the reference's
 * semantics stand, and the recommended way cannot crash at import.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NODE, run } from './exec';
import { npmPack } from './pack';
import { readJson } from './paths';

/** `mylib` at `version`: registers its groups at import and exports a gated site. */
function writeLibrary(dir: string, version: string, groups: string[]): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name: 'mylib', version, main: 'index.js' }, null, 2)}\n`);
  fs.writeFileSync(
    path.join(dir, 'index.js'),
    `'use strict';
const { SpanRegistry, managedSpan, spanGroup } = require('nemo-lens');
// A library registers at import; allowOverride accepts another installed copy of itself.
const strict = process.env.MYLIB_AS_THE_REFERENCE === '1';
SpanRegistry.register('mylib', ${JSON.stringify(groups)}, { default: ['step'] }, strict ? {} : { allowOverride: true });
const STEP = spanGroup('step');
exports.version = ${JSON.stringify(version)};
exports.step = (fn) => managedSpan(STEP, 'mylib.step', fn);
`,
  );
}

/** Tarballs of mylib 2.0.0 and of `other`, which bundles mylib 1.0.0 in its own node_modules. */
export function libraryTarballs(work: string, destination: string): string[] {
  const top = path.join(work, 'mylib-2');
  writeLibrary(top, '2.0.0', ['step', 'layer']);
  const other = path.join(work, 'other');
  writeLibrary(path.join(other, 'node_modules', 'mylib'), '1.0.0', ['step']);
  const manifest = { name: 'other', version: '1.0.0', main: 'index.js', dependencies: { mylib: '1.0.0' }, bundleDependencies: ['mylib'] };
  fs.writeFileSync(path.join(other, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.writeFileSync(path.join(other, 'index.js'), `'use strict';\nconst mylib = require('mylib');\nexports.mylibVersion = mylib.version;\nexports.step = mylib.step;\n`);
  return [npmPack(top, destination).file, npmPack(other, destination).file];
}

export const HOST = `'use strict';
const mylib = require('mylib');
const other = require('other');
const { SpanRegistry, setSpanGroupSpec } = require('nemo-lens');
setSpanGroupSpec('default');
console.log(JSON.stringify({
  versions: [mylib.version, other.mylibVersion],
  namespaces: SpanRegistry.namespaces(),
  gated: [mylib.step((span) => span !== undefined), other.step((span) => span !== undefined)],
}));
`;

export function checkInstalledTwice(dir: string, env: NodeJS.ProcessEnv): string[] {
  const versionAt = (...where: string[]) => readJson<{ version: string }>(path.join(dir, 'node_modules', ...where, 'package.json')).version;
  assert.equal(versionAt('other', 'node_modules', 'mylib'), '1.0.0', 'npm installed the copy other bundles');
  assert.equal(versionAt('mylib'), '2.0.0');
  fs.writeFileSync(path.join(dir, 'host.cjs'), HOST);
  const ok = run(NODE, ['host.cjs'], { cwd: dir, env });
  const report = JSON.parse(ok.stdout.trim()) as { versions: string[]; namespaces: string[]; gated: boolean[] };
  assert.deepEqual(report, { versions: ['2.0.0', '1.0.0'], namespaces: ['mylib'], gated: [true, true] }, 'two copies with allowOverride');
  const strict = run(NODE, ['host.cjs'], { cwd: dir, env: { ...env, MYLIB_AS_THE_REFERENCE: '1' }, allowFailure: true });
  assert.notEqual(strict.status, 0, 'without allowOverride the second copy throws at import');
  assert.match(strict.stderr, /ERR_NEMO_LENS_NAMESPACE_REGISTERED/);
  return [
    `mylib 2.0.0 and 1.0.0 (inside other) both register "mylib" with allowOverride: the host runs, one namespace, both sites gated by one spec`,
    `the same without allowOverride: exit ${strict.status}, ERR_NEMO_LENS_NAMESPACE_REGISTERED (the reference's semantics)`,
  ];
}
