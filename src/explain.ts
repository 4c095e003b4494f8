/**
 * What `nemo-lens explain` reports: which groups a spec enables in a process that loaded the
 * given libraries, what each namespace registered (groups, presets and their members), who
 * owns each group (a name claimed by several namespaces is one shared gate), which tokens
 * name nothing here and what they probably meant, and the warnings such a process prints.
 *
 * The core keeps no per-namespace view (the hot path needs only the merged one), so
 * `observeRegistrations` records what each successful register/unregister/clear call did by
 * wrapping this realm's core instance: a command-line process, the only user of this module,
 * owns its realm and patches nothing else.
 */
import { normalizeName } from './backends/js/normalize';
import { suggestions } from './backends/js/suggest';
import type { CoreState, Outcome } from './backends/types';
import { shared } from './global';
import { SpanRegistry, setSpanGroupSpec } from './registry';
import { onWarning, type NemoLensWarning } from './warnings';

/** One namespace's registration as its library made it (names normalised as the core does). */
export interface Registration {
  readonly namespace: string;
  readonly groups: readonly string[];
  readonly presets: ReadonlyArray<{ readonly name: string; readonly members: readonly string[] }>;
}

export interface GroupReport {
  readonly name: string;
  readonly owners: readonly string[];
  /** Registered by more than one namespace: one gate turns on every owner's spans. */
  readonly shared: boolean;
  readonly enabled: boolean;
}

export interface PresetReport {
  readonly namespace: string;
  readonly name: string;
  readonly members: readonly string[];
  /** Members no namespace registers (kept and ignored until one does, or a typo). */
  readonly unregistered: readonly string[];
}

export interface PendingReport {
  readonly token: string;
  readonly suggestion: string | null;
}

export interface Explanation {
  readonly spec: string;
  /** Where the spec came from: the command line, NEMO_LENS_SPAN_GROUPS, or the default. */
  readonly specSource: 'argument' | 'NEMO_LENS_SPAN_GROUPS' | 'default';
  readonly backend: 'native' | 'js';
  readonly namespaces: readonly string[];
  readonly enabled: readonly string[];
  readonly pending: readonly PendingReport[];
  readonly groups: readonly GroupReport[];
  readonly presets: readonly PresetReport[];
  /** The merged presets the spec resolves against (`all` first). */
  readonly mergedPresets: Readonly<Record<string, readonly string[]>>;
  /** Warnings while loading the libraries, then the spec report a process would print. */
  readonly warnings: readonly NemoLensWarning[];
}

/** Start recording registrations and warnings; call before loading any library. */
export function observeRegistrations(): { registrations: Map<string, Registration>; warnings: NemoLensWarning[]; stop: () => void } {
  const registrations = new Map<string, Registration>();
  const warnings: NemoLensWarning[] = [];
  const unsubscribe = onWarning((warning) => warnings.push(warning));
  const core = shared.core as CoreState & Record<string, unknown>;
  const original = { register: core.register, unregister: core.unregister, clear: core.clear };
  const ownBefore = (['register', 'unregister', 'clear'] as const).filter((key) => Object.prototype.hasOwnProperty.call(core, key));
  core.register = function (namespace, groups, presets, allowOverride): Outcome {
    const outcome = original.register.call(this, namespace, groups, presets, allowOverride);
    if (!outcome.error) {
      registrations.set(namespace, {
        namespace,
        groups: unique(groups.map(normalizeName)),
        presets: (presets ?? []).map(([name, members]) => ({ name: normalizeName(name), members: unique(members.map(normalizeName)) })),
      });
    }
    return outcome;
  };
  core.unregister = function (namespace): Outcome {
    const outcome = original.unregister.call(this, namespace);
    if (!outcome.error) registrations.delete(namespace);
    return outcome;
  };
  core.clear = function (): Outcome {
    const outcome = original.clear.call(this);
    if (!outcome.error) registrations.clear();
    return outcome;
  };
  return {
    registrations,
    warnings,
    stop: () => {
      unsubscribe();
      for (const key of ['register', 'unregister', 'clear'] as const) {
        if (ownBefore.includes(key)) (core as Record<string, unknown>)[key] = original[key];
        else delete core[key];
      }
    },
  };
}

function unique(names: readonly string[]): string[] {
  return [...new Set(names)];
}

/** Resolve `spec` here (as setSpanGroupSpec would) and describe the result. */
export function explain(
  spec: string,
  specSource: Explanation['specSource'],
  observed: { registrations: ReadonlyMap<string, Registration>; warnings: NemoLensWarning[] },
): Explanation {
  const before = observed.warnings.length;
  setSpanGroupSpec(spec);
  const report = observed.warnings.slice(before);
  const { enabled, pending } = SpanRegistry.resolve(spec);
  const merged = SpanRegistry.presets();
  const registrations = [...observed.registrations.values()].sort((a, b) => (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : 0));
  const live = SpanRegistry.groups();

  const owners = new Map<string, string[]>();
  for (const registration of registrations) {
    for (const group of registration.groups) owners.set(group, [...(owners.get(group) ?? []), registration.namespace]);
  }
  const groups: GroupReport[] = [...live].map((name) => {
    const by = owners.get(name) ?? [];
    return { name, owners: by, shared: by.length > 1, enabled: enabled.has(name) };
  });
  const presets: PresetReport[] = registrations.flatMap((registration) =>
    registration.presets.map((preset) => ({
      namespace: registration.namespace,
      name: preset.name,
      members: preset.members,
      unregistered: preset.members.filter((member) => !live.has(member)),
    })),
  );
  const suggested = new Map(suggestions([...pending], [...live], [...merged.keys()]));
  return {
    spec,
    specSource,
    backend: shared.backend,
    namespaces: SpanRegistry.namespaces(),
    enabled: [...live].filter((name) => enabled.has(name)),
    pending: [...pending].map((token) => ({ token, suggestion: suggested.get(token) ?? null })),
    groups,
    presets,
    mergedPresets: Object.fromEntries([...merged].map(([name, members]) => [name, [...members]])),
    warnings: [...observed.warnings.slice(0, before), ...report],
  };
}
