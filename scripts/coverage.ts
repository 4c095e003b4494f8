/**
 * npm run coverage — line coverage of src/ per backend, and the lines only one backend reaches.
 *
 * The same ava specs run twice, once per backend (NEMO_LENS_BACKEND=native, then js), each
 * under c8 (V8's own coverage, mapped back to the .ts sources through tsx's source maps;
 * child processes the specs start are counted too, since they inherit NODE_V8_COVERAGE).
 * Then the two line maps are compared file by file. Lines only the native runs reach are
 * expected in src/backends/native.ts, lines only the js runs reach in src/backends/js/;
 * anything else in either column is a path of the facade that the shared specs exercise on
 * one backend only, which is what this report is for.
 *
 * Writes coverage/<backend>/ (c8's json and html reports) and coverage/backends.md (the
 * table this prints). Arguments are spec files, to measure a subset: `npm run coverage --
 * __test__/spans.spec.ts`. Exits non-zero when a run's specs fail (its figures would be
 * partial), after reporting what it measured.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import libCoverage from 'istanbul-lib-coverage';
import { ROOT, binOf } from './packaging/paths';

const BACKENDS = ['native', 'js'] as const;
type Backend = (typeof BACKENDS)[number];

const OUT = path.join(ROOT, 'coverage');

/** Lines (1-based) with at least one hit, and every line V8 counted as code, per src file. */
interface LineMap {
  readonly covered: Set<number>;
  readonly code: Set<number>;
}

function measure(backend: Backend, specs: readonly string[]): { ok: boolean; ms: number } {
  const dir = path.join(OUT, backend);
  fs.rmSync(dir, { recursive: true, force: true });
  const args = [
    binOf('c8'),
    '--temp-directory', path.join(dir, 'raw'),
    '--reports-dir', dir,
    '--reporter', 'json',
    '--reporter', 'html',
    '--reporter', 'text-summary',
    // Every src file, loaded or not (a module no spec loads shows as 0%).
    '--all', '--src', 'src',
    '--include', 'src/**/*.ts',
    // Type declarations only: no runtime code to cover.
    '--exclude', 'src/backends/types.ts',
    // Apply include/exclude after source maps, so that dist/*.js loaded by child processes
    // (the packaged-copy specs) counts for the src/*.ts it was compiled from.
    '--exclude-after-remap',
    binOf('ava'),
    ...specs,
  ];
  console.log(`\n== coverage: ${backend} backend`);
  const started = performance.now();
  const child = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NEMO_LENS_BACKEND: backend } });
  return { ok: child.status === 0, ms: Math.round(performance.now() - started) };
}

function lineMaps(backend: Backend): Map<string, LineMap> {
  const file = path.join(OUT, backend, 'coverage-final.json');
  const map = libCoverage.createCoverageMap(JSON.parse(fs.readFileSync(file, 'utf8')) as libCoverage.CoverageMapData);
  const result = new Map<string, LineMap>();
  for (const name of map.files()) {
    const lines = map.fileCoverageFor(name).getLineCoverage();
    const covered = new Set<number>();
    const code = new Set<number>();
    for (const [line, hits] of Object.entries(lines)) {
      code.add(Number(line));
      if (hits > 0) covered.add(Number(line));
    }
    result.set(path.relative(ROOT, name), { covered, code });
  }
  return result;
}

/** `[3, 4, 5, 9]` → `"3-5, 9"`. */
function ranges(lines: Iterable<number>): string {
  const sorted = [...lines].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

const percent = (part: number, whole: number): string => (whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`);

function only(a: LineMap | undefined, b: LineMap | undefined): number[] {
  return [...(a?.covered ?? [])].filter((line) => !(b?.covered.has(line) ?? false));
}

function report(maps: Record<Backend, Map<string, LineMap>>): string {
  const files = [...new Set([...maps.native.keys(), ...maps.js.keys()])].sort();
  const rows: string[] = [];
  const totals = { code: 0, native: 0, js: 0, either: 0 };
  const onlyRows: string[] = [];
  for (const file of files) {
    const native = maps.native.get(file);
    const js = maps.js.get(file);
    const code = new Set([...(native?.code ?? []), ...(js?.code ?? [])]);
    const either = new Set([...(native?.covered ?? []), ...(js?.covered ?? [])]);
    const nativeOnly = only(native, js);
    const jsOnly = only(js, native);
    totals.code += code.size;
    totals.native += native?.covered.size ?? 0;
    totals.js += js?.covered.size ?? 0;
    totals.either += either.size;
    rows.push(
      `| ${file} | ${code.size} | ${percent(native?.covered.size ?? 0, code.size)} | ${percent(js?.covered.size ?? 0, code.size)} | ` +
        `${percent(either.size, code.size)} | ${nativeOnly.length} | ${jsOnly.length} |`,
    );
    if (nativeOnly.length > 0) onlyRows.push(`- ${file}, native only: ${ranges(nativeOnly)}`);
    if (jsOnly.length > 0) onlyRows.push(`- ${file}, js only: ${ranges(jsOnly)}`);
  }
  return [
    '| file | lines | native | js | either | native only | js only |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    `| **all of src/** | ${totals.code} | ${percent(totals.native, totals.code)} | ${percent(totals.js, totals.code)} | ` +
      `${percent(totals.either, totals.code)} | | |`,
    '',
    'Lines reached by one backend\'s runs only:',
    '',
    ...onlyRows,
    '',
  ].join('\n');
}

function main(): void {
  const specs = process.argv.slice(2);
  const runs = BACKENDS.map((backend) => ({ backend, ...measure(backend, specs) }));
  const table = report({ native: lineMaps('native'), js: lineMaps('js') });
  const timing = runs.map(({ backend, ms, ok }) => `${backend} ${(ms / 1000).toFixed(0)} s${ok ? '' : ' (specs failed)'}`).join(', ');
  const text = `# Line coverage of src/ per backend\n\n${specs.length > 0 ? `Specs: ${specs.join(' ')}\n\n` : ''}${table}\nRun time: ${timing}.\n`;
  fs.writeFileSync(path.join(OUT, 'backends.md'), text);
  console.log(`\n${text}\nWritten to coverage/backends.md; per-backend HTML in coverage/native/ and coverage/js/.`);
  const failed = runs.filter((run) => !run.ok);
  if (failed.length > 0) {
    console.error(`nemo-lens coverage: the specs failed on ${failed.map((run) => run.backend).join(' and ')}; the figures above are partial.`);
    process.exitCode = 1;
  }
}

main();
