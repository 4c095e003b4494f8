/**
 * prepack — refuse to pack a checkout whose build is missing or stale: the tarball is dist/,
 * esm/ and the generated loader native/binding.cjs, none of which git holds. Every source
 * file must have an output at least as new, and every output a source (tsc never deletes
 * the output of a removed file, and npm would ship it).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT } from './packaging/paths';

function filesUnder(dir: string, suffix: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith(suffix))
    .map((file) => file.split(path.sep).join('/'))
    .sort();
}

export function packProblems(): string[] {
  const problems: string[] = [];
  for (const file of ['native/binding.cjs', 'esm/index.mjs', 'esm/fallbacks.mjs', 'esm/testing.mjs']) {
    if (!fs.existsSync(path.join(ROOT, file))) problems.push(`${file} is missing`);
  }
  const sources = filesUnder(path.join(ROOT, 'src'), '.ts').filter((file) => !file.endsWith('.d.ts'));
  const outputs = new Set(filesUnder(path.join(ROOT, 'dist'), '.js'));
  for (const source of sources) {
    const output = source.replace(/\.ts$/, '.js');
    if (!outputs.has(output)) {
      problems.push(`dist/${output} is missing (from src/${source})`);
    } else if (fs.statSync(path.join(ROOT, 'dist', output)).mtimeMs < fs.statSync(path.join(ROOT, 'src', source)).mtimeMs) {
      problems.push(`dist/${output} is older than src/${source}`);
    }
    outputs.delete(output);
  }
  for (const leftover of outputs) problems.push(`dist/${leftover} has no source (left over from a removed file)`);
  return problems;
}

if (require.main === module) {
  const problems = packProblems();
  if (problems.length > 0) {
    console.error(`nemo-lens cannot be packed from this checkout:\n- ${problems.join('\n- ')}\nRun \`npm run build\` (delete dist/ first when a file is left over).`);
    process.exitCode = 1;
  }
}
