/**
 * The public registry and process-state API. Each call checks its arguments, runs the
 * backend, brings the gates in line, then throws the coded error or emits the warnings.
 */
import { checkName, checkNames, checkOptionalBoolean, checkOptions, checkPresets } from './arguments';
import { normalizeName } from './backends/js/normalize';
import type { Outcome } from './backends/types';
import { errorFromDiagnostic } from './errors';
import { spanGroup, syncGates, type SpanGroup } from './gate';
import { shared } from './global';
import { emitWarnings } from './warnings';

export interface RegisterOptions {
  /** Replace this namespace's registration wholesale, and accept shared group names silently. */
  readonly allowOverride?: boolean;
}

/**
 * Names: an array, a Set or any other iterable of strings, but not a string itself (which
 * is iterable too; the reference would split it into characters, we refuse it, and `& object`
 * makes the compiler refuse it first).
 */
export type Names = Iterable<string> & object;

/** Preset name → group names, as a plain object or a Map. */
export type Presets = Readonly<Record<string, Names>> | ReadonlyMap<string, Names>;

/** The group names of a `Names` value: the literal names of an `as const` array (or a const type argument), else `string`. */
export type NamesOf<G extends Names> = G extends Iterable<infer N extends string> ? N : string;

/**
 * What `register` returns: the gate handle of each registered group, keyed by the name as the
 * caller wrote it (the handle is that of the normalised name: `register('ns', ['Step'])` gives
 * `G.Step`, the handle of group `step`). Typed from the names, so `G.stpe` does not compile.
 */
export type GateHandles<G extends string> = { readonly [K in G]: SpanGroup };

export interface Resolved {
  readonly enabled: ReadonlySet<string>;
  readonly pending: ReadonlySet<string>;
}

function apply(outcome: Outcome): void {
  if (outcome.error) throw errorFromDiagnostic(outcome.error);
  syncGates();
  emitWarnings(outcome.warnings);
}

/** Resolution never throws: a non-string spec selects nothing, lone surrogates become U+FFFD. */
function specText(spec: unknown): string {
  return typeof spec === 'string' ? spec.toWellFormed() : '';
}

/** A frozen, prototype-less object of name (as given) → handle of the normalised name. */
function gateHandles(names: readonly string[]): Record<string, SpanGroup> {
  const handles = Object.create(null) as Record<string, SpanGroup>;
  for (const name of names) handles[name] = spanGroup(normalizeName(name));
  return Object.freeze(handles);
}

export const SpanRegistry = Object.freeze({
  /**
   * Register the span groups (and named presets of them) that `namespace` emits. Returns their
   * gate handles, `G.step` for group `step`, typed from the names when they are literals
   * (`register('trainer', ['step', 'layer'] as const)`, or any array literal in place).
   */
  register<const G extends Names>(namespace: string, groups: G, presets?: Presets, options?: RegisterOptions): GateHandles<NamesOf<G>> {
    const ns = checkName(namespace, 'namespace');
    const names = checkNames(groups, `the groups of namespace "${ns}"`);
    const presetEntries = checkPresets(presets, ns);
    const allowOverride = checkOptionalBoolean(checkOptions<RegisterOptions>(options, 'options').allowOverride, 'allowOverride');
    apply(shared.core.register(ns, names, presetEntries, allowOverride));
    return gateHandles(names) as GateHandles<NamesOf<G>>;
  },

  /** Remove a namespace; a group shared with another namespace survives. */
  unregister(namespace: string): void {
    apply(shared.core.unregister(checkName(namespace, 'namespace')));
  },

  /** Remove every namespace (a retained spec re-resolves against the empty registry). */
  clear(): void {
    apply(shared.core.clear());
  },

  groups(): ReadonlySet<string> {
    return new Set(shared.core.groups());
  },

  /** Registered namespaces, sorted. */
  namespaces(): string[] {
    return shared.core.namespaces();
  },

  /** Presets merged across namespaces; `all` is always present and equals `groups()`. */
  presets(): ReadonlyMap<string, ReadonlySet<string>> {
    return new Map(shared.core.presets().map(([name, members]) => [name, new Set(members)]));
  },

  /** What `spec` would enable here, and which of its tokens name nothing; never throws. */
  resolve(spec: string): Resolved {
    const { enabled, pending } = shared.core.resolve(specText(spec));
    return { enabled: new Set(enabled), pending: new Set(pending) };
  },
});

/** Retain `spec` and enable what it resolves to, now and after every registry change. */
export function setSpanGroupSpec(spec: string): void {
  apply(shared.core.setSpec(checkName(spec, 'the span-group spec')));
}

/** Enable exactly these names (as given, no normalisation) and drop the spec. */
export function setEnabledSpanGroups(names: Names): void {
  apply(shared.core.pin(checkNames(names, 'the enabled span groups')));
}

export function enabledSpanGroups(): ReadonlySet<string> {
  return new Set(shared.core.enabled());
}

/** Tokens of the retained spec that nothing here registers (yet). */
export function pendingSpanGroups(): ReadonlySet<string> {
  return new Set(shared.core.pending());
}

/** Set by an enabled `setupTelemetry` (registrations after it warn), cleared by teardown. */
export function markSetupDone(done: boolean): void {
  shared.core.setSetupDone(done);
}
