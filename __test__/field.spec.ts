/**
 * Packaging in the field, the parts a unit test can hold (the package test builds real
 * bundles and runs Bun and Deno): a refused environment read is unset, so that Deno without
 * --allow-env can import; the platform packages a bundle looks for; and a dev install on this
 * Node prints no engine warning (every locked package's `engines.node` accepts it).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import test from 'ava';
import * as semver from 'semver';

import { readEnv } from '../src/env';
import { platformPackages } from '../src/backends/find-binding';
import { selectBackend } from '../src/backends/select';

/** process.env as Deno without --allow-env presents it: every read throws. */
const refusing = new Proxy({} as Record<string, string | undefined>, {
  get(_target, name) {
    throw Object.assign(new Error(`Requires env access to "${String(name)}", run again with the --allow-env flag`), { name: 'NotCapable' });
  },
});

test('a refused env read is unset, and choosing a backend survives it', (t) => {
  t.is(readEnv('NEMO_LENS_BACKEND', refusing), undefined);
  t.is(readEnv('HOME', { HOME: '/root' }), '/root');
  const choice = selectBackend(refusing);
  t.true(choice.backend === 'native' || choice.backend === 'js');
});

test('the platform packages a bundle looks for match npm/', (t) => {
  const committed = fs.readdirSync(path.join(__dirname, '..', 'npm')).map((dir) => `nemo-lens-${dir}`);
  const looked = new Set(
    [
      ['linux', 'x64'],
      ['linux', 'arm64'],
      ['darwin', 'x64'],
      ['darwin', 'arm64'],
      ['win32', 'x64'],
    ].flatMap(([platform, arch]) => platformPackages(platform!, arch!)),
  );
  t.deepEqual([...looked].sort(), committed.sort());
});

test('every package in package-lock.json accepts this Node in its engines (so npm install prints no EBADENGINE)', (t) => {
  const lock = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean; os?: string[]; cpu?: string[] }>;
  };
  const refusing: string[] = [];
  for (const [location, entry] of Object.entries(lock.packages)) {
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    // Packages for another OS or CPU are never installed here, so npm does not check them.
    if (range === undefined || location === '' || !fs.existsSync(path.join(__dirname, '..', location))) continue;
    if (!semver.satisfies(process.version, range, { includePrerelease: true })) refusing.push(`${location} (${range}) refuses Node ${process.version}`);
  }
  t.deepEqual(refusing, []);
});
