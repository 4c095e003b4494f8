/**
 * `npm run bench` — the whole benchmark, one configuration per fresh child process.
 *
 *   npm run bench                   full run (3 rounds), writes bench/results/latest.json + scale.svg
 *   npm run bench -- --quick        one short round (< 2 minutes), writes bench/results/quick.tmp.*
 *   npm run bench -- --readme       also rewrite the README "Performance" section from the results
 *   npm run bench -- --only REGEX   only configurations whose id matches (e.g. --only 'micro:ours'), into partial.tmp.*
 *   npm run bench -- --skip-build   measure the existing dist/ and native/ in place (no private snapshot build)
 *   npm run bench -- --no-profile   skip bench/profile.ts (the evidence in bench/results/profile.md; full runs only)
 *   npm run bench -- --render FILE  only re-render the table, chart and README from a results file
 *
 * Why children: OpenTelemetry keeps its globals on globalThis and V8 keeps type feedback per
 * function for the life of a process, so two cases in one process would measure each other's
 * leftovers (a registered SDK, a megamorphic call site). Each child runs one case: see child.ts.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { SCALE_SIZES, namespacesFor } from './cases/scale';
import { startupScript, startupTargets } from './cases/startup';
import type { Backend, Mode } from './cases/types';
import { describeMachine } from './lib/machine';
import { ROOT } from './lib/package';
import type { ChildJob, ChildResult, JobKind } from './lib/protocol';
import { renderChart, renderMarkdown, renderTerminal, spliceReadme } from './lib/report';
import type { Results } from './lib/results';
import { max, median, min } from './lib/stats';
import { evaluateTargets } from './lib/targets';

interface Options {
  readonly quick: boolean;
  readonly profile: boolean;
  readonly readme: boolean;
  readonly only: RegExp | undefined;
  readonly skipBuild: boolean;
  readonly render: string | undefined;
}

function parseArgs(argv: readonly string[]): Options {
  let quick = false;
  let profile: boolean | undefined;
  let readme = false;
  let skipBuild = false;
  let only: RegExp | undefined;
  let render: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--quick') quick = true;
    else if (arg === '--profile') profile = true;
    else if (arg === '--no-profile') profile = false;
    else if (arg === '--readme') readme = true;
    else if (arg === '--skip-build') skipBuild = true;
    else if (arg === '--only') only = new RegExp(argv[++i] ?? '');
    else if (arg.startsWith('--only=')) only = new RegExp(arg.slice('--only='.length));
    else if (arg === '--render') render = argv[++i];
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${readFileSync(__filename, 'utf8').split('\n').slice(1, 10).join('\n')}\n`);
      process.exit(0);
    } else throw new Error(`bench: unknown argument ${arg} (see --help)`);
  }
  return { quick, readme, only, skipBuild, render, profile: profile ?? (!quick && only === undefined) };
}

interface Config {
  readonly id: string;
  readonly kind: JobKind;
  readonly module: string;
  readonly case: string;
  readonly mode: Mode;
  readonly backend: Backend | undefined;
  readonly params?: Readonly<Record<string, number>>;
  readonly flags: readonly string[];
  readonly calls?: number;
}

const RESULTS = path.join(ROOT, 'bench', 'results');
const CHILD = path.join(ROOT, 'bench', 'child.ts');

const OUR_SITES = [
  'is-hit',
  'is-miss',
  'handle',
  'managed-string',
  'managed-handle',
  'managed-options',
  'managed-module',
  'tracefn',
  'tracefn-handle',
] as const;
const PEERS = ['set-has', 'set-wrapper', 'debug', 'otel-api', 'otel-sdk-off', 'dc-has-subscribers'] as const;
/** Peers whose cost depends on what their functions saw before (the rest are measured in mono only, and in modes mega and realistic read from there). */
const MEGA_PEERS = ['set-has', 'set-wrapper'] as const;
/** Candidate changes (cases/proposals.ts), measured in modes mono and mega. */
const PROPOSALS = ['table-fast', 'table-dict', 'map', 'set', 'tracefn-current', 'tracefn-proposed'] as const;
/** What --quick keeps outside mode mono (the rows the targets and the notes rely on). */
const QUICK_SITES = new Set(['is-miss', 'handle', 'managed-string', 'managed-handle', 'tracefn']);
const QUICK_PROPOSALS = new Set(['table-fast', 'set', 'tracefn-current', 'tracefn-proposed']);

function modeFlags(mode: Mode): string[] {
  return mode === 'noinline' ? ['--no-turbo-inlining'] : [];
}

function micro(module: string, name: string, mode: Mode, backend?: Backend): Config {
  return {
    id: `micro:${module}/${name}${backend ? `@${backend}` : ''}:${mode}`,
    kind: 'micro',
    module,
    case: name,
    mode,
    backend,
    flags: modeFlags(mode),
  };
}

function plan(quick: boolean): { micro: Config[]; enabled: Config[]; memory: Config[]; scale: Config[] } {
  const backends: Backend[] = ['native', 'js'];
  const modes: Mode[] = ['mono', 'mega', 'realistic', 'noinline'];
  const microConfigs: Config[] = [];
  for (const mode of modes) {
    microConfigs.push(micro('baseline', 'bare', mode), micro('baseline', 'field', mode));
    // The gates never call the core, so --quick measures the twin in mode mono only, and
    // outside mode mono only the sites the targets and notes rely on.
    const short = quick && mode !== 'mono';
    for (const backend of short ? (['native'] as Backend[]) : backends) {
      for (const site of OUR_SITES) if (!short || QUICK_SITES.has(site)) microConfigs.push(micro('ours', site, mode, backend));
    }
    for (const peer of mode === 'mega' || mode === 'realistic' ? MEGA_PEERS : PEERS) microConfigs.push(micro('peers', peer, mode));
    const proposalModes: Mode[] = quick ? ['mega'] : ['mono', 'mega'];
    if (proposalModes.includes(mode)) {
      for (const proposal of PROPOSALS) if (!quick || QUICK_PROPOSALS.has(proposal)) microConfigs.push(micro('proposals', proposal, mode));
    }
  }

  const enabled: Config[] = [];
  for (const backend of quick ? (['native'] as Backend[]) : backends) {
    for (const name of ['managed-tracer', 'managed-global']) {
      enabled.push({ ...micro('enabled', name, 'mono', backend), id: `enabled:${name}@${backend}` });
    }
  }
  for (const name of ['raw', 'raw-attribute']) enabled.push({ ...micro('enabled', name, 'mono'), id: `enabled:${name}` });
  // The export hand-off, before and after the worker, in the same run (cases/enabled.ts "pipeline").
  for (const name of ['pipeline-main', 'pipeline-worker']) enabled.push({ ...micro('enabled', name, 'mono', 'native'), id: `enabled:${name}@native` });
  // Candidate enabled paths (cases/enabled.ts), full runs only.
  if (!quick) for (const name of ['copy-current', 'copy-one-active', 'copy-lean']) enabled.push({ ...micro('enabled', name, 'mono'), id: `enabled:${name}` });

  const memory: Config[] = [];
  const memoryCase = (module: string, name: string, backend: Backend | undefined, calls = 10_000_000): Config => ({
    id: `memory:${module}/${name}${backend ? `@${backend}` : ''}`,
    kind: 'memory',
    module,
    case: name,
    mode: 'mono',
    backend,
    flags: ['--expose-gc'],
    calls,
  });
  memory.push(memoryCase('baseline', 'bare', undefined), memoryCase('baseline', 'alloc-control', undefined));
  for (const backend of quick ? (['native'] as Backend[]) : backends) {
    for (const name of ['is-miss', 'handle', 'managed-string', 'managed-handle', 'managed-options', 'tracefn', 'tracefn-handle']) {
      memory.push(memoryCase('ours', name, backend));
    }
  }
  memory.push(memoryCase('proposals', 'tracefn-proposed', undefined));
  memory.push(memoryCase('peers', 'otel-api', undefined, 1_000_000));

  const scale: Config[] = [];
  for (const layer of ['api', 'core']) {
    for (const backend of backends) {
      for (const size of SCALE_SIZES) {
        scale.push({
          id: `scale:${layer}@${backend}:${size}`,
          kind: 'timed',
          module: 'scale',
          case: layer,
          mode: 'mono',
          backend,
          params: { size },
          flags: ['--expose-gc'],
        });
      }
    }
  }
  return { micro: microConfigs, enabled, memory, scale };
}

function childEnv(extra: Readonly<Record<string, string>> = {}, backend?: Backend): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env['DEBUG']; // the `debug` peer must be disabled
  delete env['NODE_OPTIONS'];
  delete env['NEMO_LENS_BACKEND'];
  if (backend !== undefined) env['NEMO_LENS_BACKEND'] = backend;
  if (extra['NEMO_LENS_BACKEND'] !== undefined) env['NEMO_LENS_BACKEND'] = extra['NEMO_LENS_BACKEND'];
  return env;
}

class Runner {
  private readonly scratch = mkdtempSync(path.join(os.tmpdir(), 'nemo-lens-bench-'));
  private done = 0;
  readonly failures: Array<{ id: string; error: string }> = [];

  constructor(
    private readonly options: Options,
    private readonly total: number,
  ) {}

  /** One child process for one configuration; undefined (and a recorded failure) if it failed. */
  run(config: Config, minCpuTimeMs: number): ChildResult | undefined {
    const out = path.join(this.scratch, `${this.done}.json`);
    const job: ChildJob = {
      kind: config.kind,
      module: config.module,
      case: config.case,
      mode: config.mode,
      backend: config.backend,
      quick: this.options.quick,
      params: config.params,
      minCpuTimeMs,
      calls: config.calls,
    };
    const started = Date.now();
    const child = spawnSync(process.execPath, [...config.flags, '--no-warnings', '--import', 'tsx', CHILD], {
      cwd: ROOT,
      env: childEnv({ BENCH_JOB: JSON.stringify(job), BENCH_OUT: out }, config.backend),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 300_000,
    });
    this.done++;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (child.status !== 0 || !existsSync(out)) {
      const error = (child.stderr || child.error?.message || `exit ${child.status} ${child.signal ?? ''}`).trim();
      this.failures.push({ id: config.id, error });
      process.stderr.write(`[${this.done}/${this.total}] ${config.id} FAILED (${seconds}s)\n${error}\n`);
      return undefined;
    }
    const result = JSON.parse(readFileSync(out, 'utf8')) as ChildResult;
    const expected = process.env['BENCH_DIST'];
    if (expected !== undefined && result.dist !== expected) throw new Error(`bench: ${config.id} measured ${result.dist}, not the snapshot ${expected}`);
    const summary = result.time
      ? `${result.time.p50.toFixed(result.time.p50 < 100 ? 3 : 0)} ns/op`
      : `${result.memory!.bytesPerCall.toFixed(4)} B/call, ${result.memory!.gcs} GCs`;
    process.stderr.write(`[${this.done}/${this.total}] ${config.id}: ${summary} (${seconds}s)\n`);
    return result;
  }

  cleanup(): void {
    rmSync(this.scratch, { recursive: true, force: true });
  }
}

/**
 * Compile src/ into a private snapshot (<tmp>/dist, with a copy of native/ beside it and
 * node_modules linked), the code the package ships, and point every child at it through
 * BENCH_DIST: dist/ and native/ are shared build outputs that other work (npm test) rebuilds.
 * Returns the snapshot directory to delete at the end, or undefined with --skip-build (which
 * measures the existing dist/ and native/ in place).
 */
function build(skip: boolean): string | undefined {
  const native = path.join(ROOT, 'native');
  const hasBinary = existsSync(native) && readdirSync(native).some((file) => file.endsWith('.node'));
  if (!hasBinary) {
    process.stderr.write('bench: no native binary in native/, building it (npm run build:native)\n');
    const built = spawnSync('npm', ['run', 'build:native'], { cwd: ROOT, stdio: 'inherit' });
    if (built.status !== 0) throw new Error('bench: npm run build:native failed; the native backend cannot be measured');
  }
  if (skip) return undefined;
  const snapshot = mkdtempSync(path.join(os.tmpdir(), 'nemo-lens-bench-build-'));
  // The project's own compiler (the `typescript` devDependency), as `npm run build:ts` runs it;
  // called by path because node_modules/.bin/tsc can belong to another TypeScript installed
  // alongside (an older compiler for testing consumers).
  const tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
  const version = (JSON.parse(readFileSync(path.join(path.dirname(tsc), '..', 'package.json'), 'utf8')) as { version: string }).version;
  process.stderr.write(`bench: compiling src/ with TypeScript ${version} (tsconfig.build.json) into a private snapshot, ${snapshot}\n`);
  const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', path.join(snapshot, 'dist')], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) {
    rmSync(snapshot, { recursive: true, force: true });
    throw new Error('bench: compiling src/ failed; nothing measured (use --skip-build to measure the existing dist/)');
  }
  cpSync(native, path.join(snapshot, 'native'), { recursive: true });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(snapshot, 'node_modules'), 'dir');
  process.env['BENCH_DIST'] = path.join(snapshot, 'dist');
  return snapshot;
}

function rotate<T>(items: readonly T[], by: number): T[] {
  if (items.length === 0) return [];
  const k = ((by % items.length) + items.length) % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/**
 * Runs `configs` for `rounds` rounds. `estimator` picks each child's figure: its median sample
 * (mitata's p50; micro-benchmarks, whose batches are short enough for interference to hit few
 * of them), or its fastest sample (the scale cases: a handful of millisecond-long samples on a
 * shared machine, where interference only ever adds time).
 */
function runTimed(runner: Runner, configs: readonly Config[], rounds: number, minCpuTimeMs: number, estimator: 'p50' | 'min' = 'p50'): Results['micro'] {
  const byId = new Map<string, { config: Config; results: ChildResult[] }>();
  for (const config of configs) byId.set(config.id, { config, results: [] });
  for (let round = 0; round < rounds; round++) {
    // Each round starts at a different place, so slow drift of a shared machine spreads over all cases.
    for (const config of rotate(configs, Math.round((round * configs.length) / rounds))) {
      const result = runner.run(config, minCpuTimeMs);
      if (result?.time) byId.get(config.id)!.results.push(result);
    }
  }
  return [...byId.values()]
    .filter((entry) => entry.results.length > 0)
    .map(({ config, results }) => {
      const p50s = results.map((r) => (estimator === 'min' ? r.time!.min : r.time!.p50));
      return {
        id: config.id,
        module: config.module,
        case: config.case,
        mode: config.mode,
        backend: config.backend ?? null,
        params: config.params ?? null,
        ns: median(p50s),
        rounds: p50s,
        spread: [min(p50s), max(p50s)] as [number, number],
        // For the `min` estimator this carries the median sample instead of the mean.
        avg: median(results.map((r) => (estimator === 'min' ? r.time!.p50 : r.time!.avg))),
        samples: results.reduce((sum, r) => sum + r.time!.samples, 0),
      };
    });
}

function runStartup(quick: boolean): Results['startup'] {
  const reps = quick ? 10 : 40;
  const targets = startupTargets();
  const samples = new Map<string, { importNs: number[]; wallNs: number[] }>(targets.map((t) => [t.name, { importNs: [], wallNs: [] }]));
  // Warm the file system cache once, untimed.
  for (const target of targets) spawnSync(process.execPath, ['-e', startupScript(target)], { cwd: ROOT, env: childEnv(target.env) });
  for (let rep = 0; rep < reps; rep++) {
    for (const target of rotate(targets, rep)) {
      const t0 = process.hrtime.bigint();
      const child = spawnSync(process.execPath, ['-e', startupScript(target)], { cwd: ROOT, env: childEnv(target.env), encoding: 'utf8' });
      const wall = Number(process.hrtime.bigint() - t0);
      if (child.status !== 0) throw new Error(`start-up child for ${target.name} failed: ${child.stderr}`);
      samples.get(target.name)!.importNs.push(Number(child.stdout));
      samples.get(target.name)!.wallNs.push(wall);
    }
  }
  process.stderr.write(`startup: ${reps} repetitions of ${targets.length} targets\n`);
  return targets.map((target) => {
    const s = samples.get(target.name)!;
    return {
      name: target.name,
      label: target.label,
      importMs: median(s.importNs) / 1e6,
      importP25Ms: [...s.importNs].sort((a, b) => a - b)[Math.floor(reps / 4)]! / 1e6,
      importP75Ms: [...s.importNs].sort((a, b) => a - b)[Math.floor((3 * reps) / 4)]! / 1e6,
      wallMs: median(s.wallNs) / 1e6,
      reps,
    };
  });
}

/** Full runs write the committed files; --quick and --only runs write ignored *.tmp.* files beside them. */
function outputPaths(quick: boolean, partial: boolean): { json: string; svg: string; markdown: string } {
  const stem = quick ? 'quick.tmp' : partial ? 'partial.tmp' : undefined;
  return stem
    ? { json: path.join(RESULTS, `${stem}.json`), svg: path.join(RESULTS, `${stem}.svg`), markdown: path.join(RESULTS, `${stem}.md`) }
    : { json: path.join(RESULTS, 'latest.json'), svg: path.join(RESULTS, 'scale.svg'), markdown: path.join(RESULTS, 'latest.md') };
}

function writeOutputs(results: Results, options: Options, paths: { json: string; svg: string; markdown: string }): void {
  mkdirSync(RESULTS, { recursive: true });
  if (results.scale.length > 0) writeFileSync(paths.svg, renderChart(results));
  const svgLink = path.relative(ROOT, paths.svg).split(path.sep).join('/');
  const markdown = renderMarkdown(results, svgLink);
  writeFileSync(paths.markdown, markdown);
  process.stdout.write(`\n${renderTerminal(results)}\n`);
  process.stderr.write(`bench: wrote ${path.relative(ROOT, paths.json)}, ${path.relative(ROOT, paths.svg)}, ${path.relative(ROOT, paths.markdown)}\n`);
  if (options.readme && (results.quick || results.partial)) {
    process.stderr.write('bench: --readme ignored: the README shows full runs only (its chart links bench/results/scale.svg)\n');
  } else if (options.readme) {
    const readme = path.join(ROOT, 'README.md');
    writeFileSync(readme, spliceReadme(readFileSync(readme, 'utf8'), markdown));
    process.stderr.write('bench: README.md performance section updated\n');
  }
}

function main(): void {
  const options = parseArgs(process.argv.slice(2));
  if (options.render !== undefined) {
    const results = JSON.parse(readFileSync(options.render, 'utf8')) as Results;
    results.targets = evaluateTargets(results);
    writeOutputs(results, options, outputPaths(results.quick, results.partial));
    return;
  }
  const started = Date.now();
  const snapshot = build(options.skipBuild);
  const machine = describeMachine(ROOT);
  const all = plan(options.quick);
  const keep = (configs: Config[]): Config[] => configs.filter((c) => options.only === undefined || options.only.test(c.id));
  const selected = { micro: keep(all.micro), enabled: keep(all.enabled), memory: keep(all.memory), scale: keep(all.scale) };
  const rounds = options.quick ? 1 : 3;
  const total = selected.micro.length * rounds + selected.enabled.length * (options.quick ? 1 : 5) + selected.memory.length + selected.scale.length;
  const runner = new Runner(options, total);
  const settings = {
    rounds,
    microMinCpuTimeMs: options.quick ? 100 : 400,
    enabledMinCpuTimeMs: options.quick ? 400 : 1000,
    scaleMinTimeMs: options.quick ? 50 : 1000,
  };
  try {
    const results: Results = {
      version: 1,
      quick: options.quick,
      partial: options.only !== undefined,
      machine,
      settings,
      micro: runTimed(runner, selected.micro, rounds, settings.microMinCpuTimeMs),
      // Enabled spans vary more between processes (async batches, GC, the SDK's timers): more rounds.
      enabled: runTimed(runner, selected.enabled, options.quick ? 1 : 5, settings.enabledMinCpuTimeMs),
      memory: selected.memory.flatMap((config) => {
        const result = runner.run(config, 0);
        return result?.memory ? [{ id: config.id, module: config.module, case: config.case, backend: config.backend ?? null, ...result.memory }] : [];
      }),
      scale: runTimed(runner, selected.scale, 1, settings.scaleMinTimeMs, 'min').map((entry) => ({
        layer: entry.case as 'api' | 'core',
        backend: entry.backend as Backend,
        size: entry.params!['size']!,
        namespaces: namespacesFor(entry.params!['size']!),
        ms: entry.ns / 1e6,
        p50Ms: entry.avg / 1e6,
        samples: entry.samples,
      })),
      startup: options.only === undefined || options.only.test('startup') ? runStartup(options.quick) : [],
      targets: [],
      failures: runner.failures,
      durationS: 0,
    };
    machine.loadAverage.end = Math.round(os.loadavg()[0]! * 100) / 100;
    results.durationS = Math.round((Date.now() - started) / 100) / 10;
    results.targets = evaluateTargets(results);
    const paths = outputPaths(options.quick, results.partial);
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(paths.json, `${JSON.stringify(results, null, 2)}\n`);
    writeOutputs(results, options, paths);
    if (options.profile) {
      process.stderr.write('bench: collecting profiles (bench/profile.ts)\n');
      const profiled = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'profile.ts')], { cwd: ROOT, stdio: 'inherit', env: childEnv() });
      if (profiled.status !== 0) runner.failures.push({ id: 'profile', error: `bench/profile.ts exited with ${profiled.status}` });
    }
    process.stderr.write(`bench: done in ${results.durationS}s${runner.failures.length ? `, ${runner.failures.length} FAILED` : ''}\n`);
    if (runner.failures.length > 0) process.exitCode = 1;
  } finally {
    runner.cleanup();
    if (snapshot !== undefined) rmSync(snapshot, { recursive: true, force: true });
  }
}

main();
