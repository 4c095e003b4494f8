/**
 * npm run check:npm-dirs — the committed platform packages (npm/<target>/package.json) are
 * exactly what `napi create-npm-dirs` writes for package.json's napi.targets, name, version,
 * engines and the rest, so a release (which regenerates nothing) cannot ship a stale one.
 * The READMEs are ours (napi would write a one-line stub) and only have to exist.
 */
import { isDeepStrictEqual } from 'node:util';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NODE, run } from './packaging/exec';
import { NPM_DIR, ROOT, binOf, platformTargets, readJson } from './packaging/paths';

export function checkNpmDirs(): string[] {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'nemo-lens-npm-dirs-'));
  try {
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(scratch, 'package.json'));
    run(NODE, [binOf('@napi-rs/cli'), 'create-npm-dirs'], { cwd: scratch });
    const generated = fs.readdirSync(path.join(scratch, 'npm')).sort();
    const committed = platformTargets();
    const problems: string[] = [];
    for (const target of generated.filter((t) => !committed.includes(t))) problems.push(`npm/${target} is missing (napi.targets has it)`);
    for (const target of committed.filter((t) => !generated.includes(t))) problems.push(`npm/${target} is not in napi.targets`);
    for (const target of generated.filter((t) => committed.includes(t))) {
      const want = readJson<unknown>(path.join(scratch, 'npm', target, 'package.json'));
      const have = readJson<unknown>(path.join(NPM_DIR, target, 'package.json'));
      if (!isDeepStrictEqual(have, want)) problems.push(`npm/${target}/package.json differs from what napi writes:\n${JSON.stringify(want, null, 2)}`);
      if (!fs.existsSync(path.join(NPM_DIR, target, 'README.md'))) problems.push(`npm/${target}/README.md is missing`);
    }
    if (problems.length > 0) {
      throw new Error(
        `the platform packages in npm/ are out of date with package.json:\n- ${problems.join('\n- ')}\n` +
          'Regenerate them with `npx napi create-npm-dirs`, then restore the READMEs with `git checkout npm/*/README.md` (new targets need one).',
      );
    }
    return committed;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

if (require.main === module) {
  try {
    console.log(`npm/: ${checkNpmDirs().length} platform packages match napi create-npm-dirs`);
  } catch (error) {
    console.error(`check:npm-dirs: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
