/**
 * What a benchmark case module provides. Each case runs alone in a fresh child process
 * (bench/child.ts), so OpenTelemetry globals and JIT feedback never leak between cases.
 */

/** How the measured site is compiled and what the library functions have seen before. */
export type Mode =
  /** One group name ever flows through the library functions: monomorphic ICs, inlining on. */
  | 'mono'
  /** Before measuring, the same library functions see 8 other names and handles (many sites, one library). */
  | 'mega'
  /** The child runs with --no-turbo-inlining: every call stays a call. */
  | 'noinline'
  /**
   * A realistic program: two libraries register eight groups, the spec enables two of them,
   * and before measuring every name reaches every entry point as strings, handles and traceFn
   * wrappers, disabled and enabled (enabled calls run real, non-recording spans).
   */
  | 'realistic';

export type Backend = 'native' | 'js';

export interface CaseContext {
  readonly mode: Mode;
  /** The backend this child forced with NEMO_LENS_BACKEND (undefined for cases that do not load nemo-lens). */
  readonly backend: Backend | undefined;
  readonly quick: boolean;
  /** Case parameters from the runner (the registry size of a scale case). */
  readonly params: Readonly<Record<string, number>>;
  /**
   * mitata's `do_not_optimize` (mitata is ESM-only; the child imports it once). Bind it to a
   * local const in the case: a named import compiled to CommonJS reads it through a getter on
   * every call (measured: about +15 ns per call under tsx).
   */
  readonly do_not_optimize: (value: unknown) => void;
}

/** A measured function; its result goes through `do_not_optimize`. Async functions are awaited. */
export interface Prepared {
  readonly fn: () => unknown;
  /** Operations per call of `fn` (ns/op = ns per call / opsPerCall); default 1. */
  readonly opsPerCall?: number;
  /**
   * Run once after measuring (not before: a second callback would change the feedback being
   * measured), so a case that silently measured the wrong path fails loudly.
   */
  readonly check?: () => void | Promise<void>;
}

export type CaseSetup = (context: CaseContext) => Prepared | Promise<Prepared>;

export interface CaseModule {
  readonly cases: Readonly<Record<string, CaseSetup>>;
}

/** Eight other group names: the "many sites, one library function" pollution of mode `mega`. */
export const OTHER_GROUPS = ['layer', 'rollout', 'forward', 'backward', 'optimizer', 'dataloader', 'eval', 'checkpoint'] as const;

/** The measured group and span name everywhere. */
export const GROUP = 'step';
export const SPAN_NAME = 'train_step';

/** Mode `realistic`: two libraries' namespaces and groups (`step` is one of the trainer's). */
export const REALISTIC_LIBRARIES = [
  { namespace: 'trainer', groups: ['step', 'layer', 'forward', 'backward'], presets: { default: ['step'], per_layer: ['step', 'layer'] } },
  { namespace: 'rl', groups: ['rollout', 'reward', 'env', 'policy'], presets: { default: ['rollout'], per_env: ['rollout', 'env'] } },
] as const;

/** Mode `realistic`: the two groups the spec enables (the measured `step` is not one of them unless a case enables it). */
export const REALISTIC_ENABLED = ['rollout', 'layer'] as const;

/** Every group name of mode `realistic`. */
export const REALISTIC_GROUPS: readonly string[] = REALISTIC_LIBRARIES.flatMap((library) => library.groups);
