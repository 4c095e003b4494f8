/**
 * The one internal interface both backends implement: the Rust core (through the
 * napi-rs binding, `src/binding/lib.rs`) and the TypeScript twin (`src/backends/js/`).
 *
 * A `CoreState` is one realm's registry plus its process state (retained spec,
 * pinned set, setup flag, last report). It never throws for a registry rule and
 * never emits anything itself: each mutating call returns an `Outcome` that the
 * facade turns into a thrown coded error or into warnings. Argument *types* are
 * checked by the facade before a call reaches a backend, so both backends only
 * ever see well-formed strings and arrays.
 */

export interface Diagnostic {
  readonly code: string;
  readonly message: string;
}

export interface Outcome {
  /** Set when the call was refused; the state is then unchanged and `warnings` is empty. */
  readonly error?: Diagnostic | null;
  /** Warnings in emission order (shared groups, preset members, late registration, spec report). */
  readonly warnings: Diagnostic[];
}

export interface Resolution {
  readonly enabled: string[];
  readonly pending: string[];
}

export interface CoreState {
  register(namespace: string, groups: string[], presets: Array<[string, string[]]> | null, allowOverride: boolean): Outcome;
  unregister(namespace: string): Outcome;
  clear(): Outcome;
  /** Retain `spec` (unless it is "") and resolve it; always reports. */
  setSpec(spec: string): Outcome;
  /** Pin exactly these names (used as given) and drop the spec. */
  pin(names: string[]): Outcome;
  /** Set by an enabled setupTelemetry: later registrations warn. */
  setSetupDone(done: boolean): void;
  /** Back to a fresh state: empty registry, no spec, nothing pinned, setup flag off. Interned ids are kept. */
  reset(): void;

  /** Registered group names, in first-registration order. */
  groups(): string[];
  /** Registered namespaces, sorted by code point. */
  namespaces(): string[];
  /** Merged presets: `all` first (in group order), then others in order of first appearance, members likewise, kept only while registered. */
  presets(): Array<[string, string[]]>;
  /** Resolve a spec against the registry without changing any state. */
  resolve(spec: string): Resolution;
  /** The live enabled set, in id order. */
  enabled(): string[];
  /** Tokens of the retained spec that name nothing here, in spec order. */
  pending(): string[];

  /**
   * Hot-path support. Every name that can ever be enabled (a registered group, a pinned
   * name) gets a stable id the first time the core sees it; ids are dense and never reused.
   */
  nameCount(): number;
  /** Interned names with id >= `from`, in id order. */
  names(from: number): string[];
  /** Write the enabled set as a bitset (bit `id % 32` of word `id >> 5`); `bits.length >= ceil(nameCount / 32)`. */
  writeEnabled(bits: Uint32Array): void;
}
