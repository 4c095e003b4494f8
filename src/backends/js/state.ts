/**
 * The TypeScript twin of the core: one realm's registry plus its process state (retained
 * spec, pinned set, setup flag, last report). Mirrors `crates/nemo-lens-core/src/state.rs`.
 */
import type { CoreState, Diagnostic, Outcome, Resolution } from '../types';
import * as messages from './messages';
import { stripWhitespace } from './normalize';
import { Registry, RegistryError } from './registry';

/** What a report depends on; a re-resolution reports only when this changed. */
function reportKey(pending: readonly string[], registryEmpty: boolean, nothingEnabled: boolean): string {
  return JSON.stringify([[...pending].sort(), registryEmpty, nothingEnabled]);
}

export class JsState implements CoreState {
  private readonly registry = new Registry();
  /** A retained spec, re-resolved on every registry change; null when pinned or never set. */
  private spec: string | null = null;
  private enabledIds = new Set<number>();
  private pendingTokens: string[] = [];
  private setupDone = false;
  private lastReportKey: string | null = null;

  private readonly ids = new Map<string, number>();
  private readonly interned: string[] = [];

  register(
    namespace: string,
    groups: string[],
    presets: Array<[string, string[]]> | null,
    allowOverride: boolean,
  ): Outcome {
    return this.change(() => {
      const { groups: registered, warnings } = this.registry.register(namespace, groups, presets, allowOverride);
      for (const group of registered) this.intern(group);
      if (this.setupDone) warnings.push(messages.lateRegistration(namespace));
      return warnings;
    });
  }

  unregister(namespace: string): Outcome {
    return this.change(() => {
      this.registry.unregister(namespace);
      return [];
    });
  }

  clear(): Outcome {
    return this.change(() => {
      this.registry.clear();
      return [];
    });
  }

  setSpec(spec: string): Outcome {
    this.spec = spec === '' ? null : spec;
    return { warnings: this.reresolve(true) };
  }

  pin(names: string[]): Outcome {
    this.spec = null;
    this.pendingTokens = [];
    this.enabledIds = new Set(names.map((name) => this.intern(name)));
    return { warnings: [] };
  }

  setSetupDone(done: boolean): void {
    this.setupDone = done;
  }

  reset(): void {
    this.registry.clear();
    this.spec = null;
    this.enabledIds = new Set();
    this.pendingTokens = [];
    this.setupDone = false;
    this.lastReportKey = null;
  }

  groups(): string[] {
    return this.registry.groups();
  }

  namespaces(): string[] {
    return this.registry.namespaces();
  }

  presets(): Array<[string, string[]]> {
    return [...this.registry.presets()];
  }

  resolve(spec: string): Resolution {
    const { enabled, pending } = this.registry.resolve(spec);
    return { enabled, pending };
  }

  enabled(): string[] {
    return [...this.enabledIds].sort((a, b) => a - b).map((id) => this.interned[id]!);
  }

  pending(): string[] {
    return [...this.pendingTokens];
  }

  nameCount(): number {
    return this.interned.length;
  }

  names(from: number): string[] {
    return this.interned.slice(from);
  }

  writeEnabled(bits: Uint32Array): void {
    bits.fill(0);
    for (const id of this.enabledIds) bits[id >>> 5]! |= 1 << (id & 31);
  }

  /** Apply a registry change; a refused change leaves every piece of state as it was. */
  private change(apply: () => Diagnostic[]): Outcome {
    let warnings: Diagnostic[];
    try {
      warnings = apply();
    } catch (error) {
      if (error instanceof RegistryError) return { error: error.diagnostic, warnings: [] };
      throw error;
    }
    if (this.spec !== null) warnings.push(...this.reresolve(false));
    return { warnings };
  }

  /** Resolve the retained spec (none → nothing enabled) and report by precedence. */
  private reresolve(always: boolean): Diagnostic[] {
    const spec = this.spec ?? '';
    const { enabled, pending } = this.registry.resolve(spec);
    this.enabledIds = new Set(enabled.map((name) => this.intern(name)));
    this.pendingTokens = pending;

    const registryEmpty = !this.registry.hasGroups();
    const key = reportKey(pending, registryEmpty, enabled.length === 0);
    const changed = key !== this.lastReportKey;
    this.lastReportKey = key;
    // A spec of only commas and blanks (`","`, `" , , "`) asked for something and got
    // nothing: it reports like any other. Only a spec that is blank as a whole is silent.
    const asked = stripWhitespace(spec) !== '';
    if (!asked || !(always || changed)) return [];
    if (registryEmpty) return [messages.noGroupsRegistered(spec)];
    const available = () => ({
      groups: this.registry.groups(),
      presets: [...this.registry.presets().keys()],
      namespaces: this.registry.namespaces(),
    });
    if (pending.length > 0) return [messages.specPending(spec, pending, available())];
    if (enabled.length === 0) return [messages.specResolvedEmpty(spec, available())];
    return [];
  }

  private intern(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.interned.length;
      this.ids.set(name, id);
      this.interned.push(name);
    }
    return id;
  }
}
