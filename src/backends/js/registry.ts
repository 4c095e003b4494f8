/**
 * The span-group registry of the TypeScript twin: namespaces, the groups they own and
 * their presets. Mirrors `crates/nemo-lens-core/src/registry.rs` step for step; the Rust
 * side adds two things with no JS counterpart: names interned to integer ids (a JS string is
 * already shared by reference) and merged presets cached between registry changes.
 */
import type { Diagnostic } from '../types';
import * as messages from './messages';
import { compareCodePoints, normalizeName, specTokens } from './normalize';

export const ALL = 'all';

interface Registration {
  /** Normalised, deduplicated, in the order given. */
  readonly groups: string[];
  /** Normalised preset name → normalised members (deduplicated, in the order given); a later duplicate name wins. */
  readonly presets: Map<string, string[]>;
}

export interface Registered {
  /** The namespace's groups, normalised. */
  readonly groups: readonly string[];
  /** Shared groups, then preset members nobody registers. */
  readonly warnings: Diagnostic[];
}

export class RegistryError {
  constructor(readonly diagnostic: Diagnostic) {}
}

function dedupe(names: Iterable<string>): string[] {
  return [...new Set(names)];
}

export class Registry {
  /** Map order is registration order; an override keeps the namespace's position. */
  private readonly byNamespace = new Map<string, Registration>();
  /** Group → owning namespaces. Map order is the order groups first became registered. */
  private readonly owners = new Map<string, Set<string>>();

  /**
   * Validate, then replace or add; throws a `RegistryError` leaving everything unchanged.
   */
  register(
    namespace: string,
    groups: readonly string[],
    presets: ReadonlyArray<readonly [string, readonly string[]]> | null,
    allowOverride: boolean,
  ): Registered {
    if (namespace === '') throw new RegistryError(messages.invalidNamespace());
    // The reference's order (SPEC.md §2): every group name is checked for emptiness before
    // any is checked for `all`, and "already registered" comes before the preset names.
    const normalizedGroups = groups.map(normalizeName);
    const empty = normalizedGroups.indexOf('');
    if (empty >= 0) throw new RegistryError(messages.emptyGroupName(namespace, groups[empty]!));
    const reserved = normalizedGroups.indexOf(ALL);
    if (reserved >= 0) throw new RegistryError(messages.reservedGroupName(namespace, groups[reserved]!));
    if (this.byNamespace.has(namespace) && !allowOverride) {
      throw new RegistryError(messages.namespaceRegistered(namespace));
    }
    const presetEntries: Array<[string, string[]]> = [];
    for (const [raw, members] of presets ?? []) {
      const name = normalizeName(raw);
      if (name === ALL) throw new RegistryError(messages.reservedPresetName(namespace, raw));
      presetEntries.push([name, dedupe(members.map(normalizeName))]);
    }

    const registration: Registration = { groups: dedupe(normalizedGroups), presets: new Map(presetEntries) };
    const warnings: Diagnostic[] = [];
    if (!allowOverride) warnings.push(...this.sharedGroupWarnings(namespace, registration.groups));
    warnings.push(...this.unregisteredMemberWarnings(namespace, registration.groups, presetEntries));

    this.dropOwnership(namespace);
    this.byNamespace.set(namespace, registration);
    for (const group of registration.groups) this.addOwner(group, namespace);
    return { groups: registration.groups, warnings };
  }

  unregister(namespace: string): void {
    if (!this.byNamespace.has(namespace)) {
      throw new RegistryError(messages.namespaceNotRegistered(namespace, this.namespaces()));
    }
    this.dropOwnership(namespace);
    this.byNamespace.delete(namespace);
  }

  clear(): void {
    this.byNamespace.clear();
    this.owners.clear();
  }

  hasGroups(): boolean {
    return this.owners.size > 0;
  }

  groups(): string[] {
    return [...this.owners.keys()];
  }

  namespaces(): string[] {
    return [...this.byNamespace.keys()].sort(compareCodePoints);
  }

  /**
   * Presets merged across namespaces (union by name, members kept only while registered),
   * `all` first. A preset pruned to empty stays as a key.
   */
  presets(): Map<string, string[]> {
    const merged = new Map<string, Set<string>>([[ALL, new Set(this.owners.keys())]]);
    for (const registration of this.byNamespace.values()) {
      for (const [name, members] of registration.presets) {
        let into = merged.get(name);
        if (into === undefined) merged.set(name, (into = new Set()));
        for (const member of members) if (this.owners.has(member)) into.add(member);
      }
    }
    return new Map([...merged].map(([name, members]) => [name, [...members]]));
  }

  /** Presets win over a group of the same name; `all` is a preset, so never pending. */
  resolve(spec: string): { enabled: string[]; pending: string[]; tokens: number } {
    const tokens = specTokens(spec);
    const presets = tokens.length > 0 ? this.presets() : new Map<string, string[]>();
    const enabled = new Set<string>();
    const pending = new Set<string>();
    for (const token of tokens) {
      const members = presets.get(token);
      if (members !== undefined) for (const member of members) enabled.add(member);
      else if (this.owners.has(token)) enabled.add(token);
      else pending.add(token);
    }
    return { enabled: [...enabled], pending: [...pending], tokens: tokens.length };
  }

  /** One warning per other namespace, in registration order, naming the groups it shares (found through `owners`). */
  private sharedGroupWarnings(namespace: string, groups: readonly string[]): Diagnostic[] {
    const sharedWith = new Map<string, string[]>();
    for (const group of groups) {
      for (const owner of this.owners.get(group) ?? []) {
        if (owner === namespace) continue;
        const shared = sharedWith.get(owner);
        if (shared === undefined) sharedWith.set(owner, [group]);
        else shared.push(group);
      }
    }
    const warnings: Diagnostic[] = [];
    if (sharedWith.size === 0) return warnings;
    for (const other of this.byNamespace.keys()) {
      const shared = sharedWith.get(other);
      if (shared !== undefined) warnings.push(messages.groupShared(namespace, other, shared));
    }
    return warnings;
  }

  /** One warning per preset entry as given, naming the members nobody (else) registers. */
  private unregisteredMemberWarnings(
    namespace: string,
    groups: readonly string[],
    presetEntries: ReadonlyArray<readonly [string, readonly string[]]>,
  ): Diagnostic[] {
    const own = new Set(groups);
    const known = (member: string): boolean => {
      if (own.has(member)) return true;
      const owners = this.owners.get(member);
      if (owners === undefined) return false;
      return owners.size > 1 || !owners.has(namespace);
    };
    const warnings: Diagnostic[] = [];
    for (const [preset, members] of presetEntries) {
      const missing = members.filter((member) => !known(member)).sort(compareCodePoints);
      if (missing.length > 0) warnings.push(messages.presetMemberUnregistered(namespace, preset, missing));
    }
    return warnings;
  }

  private addOwner(group: string, namespace: string): void {
    const owners = this.owners.get(group);
    if (owners === undefined) this.owners.set(group, new Set([namespace]));
    else owners.add(namespace);
  }

  private dropOwnership(namespace: string): void {
    const registration = this.byNamespace.get(namespace);
    if (registration === undefined) return;
    for (const group of registration.groups) {
      const owners = this.owners.get(group)!;
      owners.delete(namespace);
      if (owners.size === 0) this.owners.delete(group);
    }
  }
}
