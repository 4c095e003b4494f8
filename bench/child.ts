/**
 * One benchmark configuration, alone in this process (spawned by bench/run.ts). Reads the job
 * from BENCH_JOB, prepares the case, measures it, runs the case's check, and writes the result
 * as JSON to the file named by BENCH_OUT.
 *
 * Kinds:
 *   - `micro`: mitata `measure` (batches of 4096 calls, median of the batch means);
 *   - `timed`: calls that take milliseconds, each after an untimed `before()` (the scale cases);
 *   - `memory`: bytes allocated by N calls, from v8.GCProfiler (bytes freed by every GC during
 *     the loop) plus the change in used heap; needs --expose-gc.
 */
import { writeFileSync } from 'node:fs';
import * as v8 from 'node:v8';

import type * as Mitata from 'mitata' with { 'resolution-mode': 'import' };

import type { CaseContext, CaseModule, Prepared } from './cases/types';
import type { TimedPrepared } from './cases/scale';
import { distDir } from './lib/package';
import type { ChildJob, ChildResult, MemoryStats, TimeStats } from './lib/protocol';

const MODULES: Readonly<Record<string, () => CaseModule>> = {
  baseline: () => require('./cases/baseline') as CaseModule,
  ours: () => require('./cases/ours') as CaseModule,
  peers: () => require('./cases/peers') as CaseModule,
  enabled: () => require('./cases/enabled') as CaseModule,
  scale: () => require('./cases/scale') as CaseModule,
  proposals: () => require('./cases/proposals') as CaseModule,
};

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower]! + (sorted[upper]! - sorted[lower]!) * (position - lower);
}

async function micro(measure: typeof Mitata.measure, prepared: Prepared, job: ChildJob): Promise<TimeStats> {
  const ops = prepared.opsPerCall ?? 1;
  const stats = await measure(prepared.fn, { min_cpu_time: job.minCpuTimeMs * 1e6 });
  return {
    p50: stats.p50 / ops,
    avg: stats.avg / ops,
    min: stats.min / ops,
    p25: stats.p25 / ops,
    p75: stats.p75 / ops,
    samples: stats.samples.length,
    calls: stats.ticks * ops,
  };
}

async function timed(prepared: TimedPrepared, job: ChildJob): Promise<TimeStats> {
  // With --expose-gc, collect before each sample: the previous registry's garbage (and the
  // native state's finalizer) is then not billed to the next call, for either backend.
  const gc = (globalThis as { gc?: () => void }).gc ?? ((): void => undefined);
  const once = async (): Promise<number> => {
    prepared.before();
    const t0 = process.hrtime.bigint();
    await prepared.fn();
    return Number(process.hrtime.bigint() - t0);
  };
  // Warm-up, and how many calls make a sample of at least ~2 ms (small registries take µs).
  let estimate = Infinity;
  for (let i = 0; i < (job.quick ? 2 : 4); i++) estimate = Math.min(estimate, await once());
  const perSample = Math.max(1, Math.min(1000, Math.ceil(2e6 / Math.max(estimate, 1))));
  const samples: number[] = [];
  const minSamples = job.quick ? 5 : 11;
  const maxSamples = job.quick ? 15 : 60;
  let spent = 0;
  while (samples.length < maxSamples && (samples.length < minSamples || spent < job.minCpuTimeMs * 1e6)) {
    gc();
    let elapsed = 0;
    for (let k = 0; k < perSample; k++) elapsed += await once();
    samples.push(elapsed / perSample);
    spent += elapsed;
  }
  samples.sort((a, b) => a - b);
  return {
    p50: quantile(samples, 0.5),
    avg: samples.reduce((a, b) => a + b, 0) / samples.length,
    min: samples[0]!,
    p25: quantile(samples, 0.25),
    p75: quantile(samples, 0.75),
    samples: samples.length,
    calls: samples.length * perSample,
  };
}

function memory(prepared: Prepared, job: ChildJob): MemoryStats {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('memory jobs need --expose-gc');
  const { fn } = prepared;
  const calls = job.calls ?? 10_000_000;
  // Warm up until the loop and the site are optimised, as they are after any real start-up
  // (compiling allocates code and feedback once; that must not be billed to the calls).
  for (let i = 0; i < 1_000_000; i++) fn();
  // Three measured loops of `calls` calls: a one-off allocation (a recompilation, a runtime
  // interrupt) shows in one of them only, an allocation per call shows in all three.
  const runs: Array<{ bytes: number; gcs: number }> = [];
  for (let run = 0; run < 3; run++) {
    gc();
    gc();
    const profiler = new v8.GCProfiler();
    profiler.start();
    const before = v8.getHeapStatistics().used_heap_size;
    for (let i = 0; i < calls; i++) fn();
    const after = v8.getHeapStatistics().used_heap_size;
    const profile = profiler.stop();
    let freed = 0;
    for (const entry of profile.statistics) freed += entry.beforeGC.heapStatistics.usedHeapSize - entry.afterGC.heapStatistics.usedHeapSize;
    runs.push({ bytes: after - before + freed, gcs: profile.statistics.length });
  }
  runs.sort((a, b) => a.bytes - b.bytes);
  const least = runs[0]!;
  return {
    calls,
    allocatedBytes: least.bytes,
    bytesPerCall: least.bytes / calls,
    bytesPerCallMax: runs[runs.length - 1]!.bytes / calls,
    gcs: least.gcs,
  };
}

async function main(): Promise<void> {
  const job = JSON.parse(process.env['BENCH_JOB'] ?? 'null') as ChildJob | null;
  const out = process.env['BENCH_OUT'];
  if (job === null || out === undefined) throw new Error('bench/child.ts is started by bench/run.ts (BENCH_JOB, BENCH_OUT)');
  const module = MODULES[job.module];
  if (module === undefined) throw new Error(`unknown case module ${job.module}`);
  const setup = module().cases[job.case];
  if (setup === undefined) throw new Error(`unknown case ${job.module}/${job.case}`);
  // mitata is ESM-only: import it dynamically from this CommonJS module.
  const mitata = (await import('mitata')) as typeof Mitata;
  const context: CaseContext = {
    mode: job.mode,
    backend: job.backend,
    quick: job.quick,
    params: job.params ?? {},
    do_not_optimize: mitata.do_not_optimize,
  };
  const prepared = await setup(context);

  const result: ChildResult = { job, node: process.version, execArgv: process.execArgv, dist: distDir() };
  if (job.kind === 'micro') result.time = await micro(mitata.measure, prepared, job);
  else if (job.kind === 'timed') {
    if (!('before' in prepared)) throw new Error(`${job.module}/${job.case} is not a timed case`);
    result.time = await timed(prepared as TimedPrepared, job);
  } else result.memory = memory(prepared, job);
  await prepared.check?.();
  writeFileSync(out, JSON.stringify(result));
}

main().then(
  // Exit explicitly: an SDK's timers or a native handle must not keep the child alive.
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
