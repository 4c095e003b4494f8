/**
 * npm run pack:local — tarballs of this checkout for this machine, in pack/: the main package
 * and the platform package holding the binary `npm run build` made. Installing both gives the
 * native core; the main one alone gives the TypeScript core. Prints the install command.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { packMain, packPlatform } from './packaging/pack';
import { ROOT, builtTarget } from './packaging/paths';

try {
  const target = builtTarget();
  const destination = path.join(ROOT, 'pack');
  fs.mkdirSync(destination, { recursive: true });
  const tarballs = [packMain(destination), packPlatform(target, destination)];
  for (const tarball of tarballs) console.log(`${path.relative(ROOT, tarball.file)}  ${(tarball.size / 1024).toFixed(1)} kB`);
  console.log(`\nIn your project:\n  npm install ${tarballs.map((tarball) => tarball.file).join(' ')} @opentelemetry/api`);
} catch (error) {
  console.error(`pack:local: ${(error as Error).message}`);
  process.exitCode = 1;
}
