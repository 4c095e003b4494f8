/** The shape of bench/results/latest.json. Times are nanoseconds per operation unless named otherwise. */
import type { Backend, Mode } from '../cases/types';
import type { Machine } from './machine';

export interface TimedEntry {
  readonly id: string;
  readonly module: string;
  readonly case: string;
  readonly mode: Mode;
  readonly backend: Backend | null;
  readonly params: Readonly<Record<string, number>> | null;
  /** Median over rounds of each round's median (mitata p50). */
  readonly ns: number;
  readonly rounds: readonly number[];
  readonly spread: readonly [number, number];
  readonly avg: number;
  readonly samples: number;
}

export interface MemoryEntry {
  readonly id: string;
  readonly module: string;
  readonly case: string;
  readonly backend: Backend | null;
  readonly calls: number;
  readonly allocatedBytes: number;
  readonly bytesPerCall: number;
  readonly bytesPerCallMax: number;
  readonly gcs: number;
}

export interface ScaleEntry {
  readonly layer: 'api' | 'core';
  readonly backend: Backend;
  readonly size: number;
  readonly namespaces: number;
  /** Milliseconds per register + resolve of the whole registry: the fastest sample. */
  readonly ms: number;
  /** The median sample, for comparison. */
  readonly p50Ms?: number;
  readonly samples: number;
}

export interface StartupEntry {
  readonly name: string;
  readonly label: string;
  /** Median time of the require() itself, measured inside the child. */
  readonly importMs: number;
  readonly importP25Ms: number;
  readonly importP75Ms: number;
  /** Median wall time of the whole process (node start-up included). */
  readonly wallMs: number;
  readonly reps: number;
}

export type Verdict = 'met' | 'missed' | 'not measured';

export interface TargetResult {
  readonly id: string;
  /** Which configuration: e.g. "native, mono". */
  readonly scope: string;
  readonly target: string;
  readonly measured: string;
  readonly verdict: Verdict;
  readonly note?: string;
  /** Gate targets: the mode and backend, and the measured value in a few characters, for the grid. */
  readonly mode?: Mode;
  readonly backend?: Backend;
  readonly short?: string;
}

export interface Results {
  readonly version: 1;
  readonly quick: boolean;
  /** Only some configurations ran (--only). */
  readonly partial: boolean;
  readonly machine: Machine;
  readonly settings: Readonly<Record<string, number>>;
  readonly micro: readonly TimedEntry[];
  readonly enabled: readonly TimedEntry[];
  readonly memory: readonly MemoryEntry[];
  readonly scale: readonly ScaleEntry[];
  readonly startup: readonly StartupEntry[];
  targets: TargetResult[];
  readonly failures: ReadonlyArray<{ id: string; error: string }>;
  durationS: number;
}
