/** What bench/run.ts sends a child (BENCH_JOB) and what the child writes back (BENCH_OUT). */
import type { Backend, Mode } from '../cases/types';

export type JobKind = 'micro' | 'timed' | 'memory';

export interface ChildJob {
  readonly kind: JobKind;
  readonly module: string;
  readonly case: string;
  readonly mode: Mode;
  readonly backend: Backend | undefined;
  readonly quick: boolean;
  readonly params?: Readonly<Record<string, number>>;
  /** mitata's (or the timed loop's) minimum measuring time per configuration. */
  readonly minCpuTimeMs: number;
  /** Memory jobs: how many calls to measure. */
  readonly calls?: number;
}

/** Nanoseconds per operation. */
export interface TimeStats {
  readonly p50: number;
  readonly avg: number;
  readonly min: number;
  readonly p25: number;
  readonly p75: number;
  readonly samples: number;
  readonly calls: number;
}

export interface MemoryStats {
  /** Calls per measured loop. */
  readonly calls: number;
  /** Bytes allocated by the loop that allocated least (of three). */
  readonly allocatedBytes: number;
  readonly bytesPerCall: number;
  /** The loop that allocated most, per call (one-off allocations land here). */
  readonly bytesPerCallMax: number;
  /** GCs during the loop that allocated least. */
  readonly gcs: number;
}

export interface ChildResult {
  readonly job: ChildJob;
  readonly node: string;
  readonly execArgv: readonly string[];
  /** The compiled package the child measured (the runner's snapshot). */
  readonly dist: string;
  time?: TimeStats;
  memory?: MemoryStats;
}
