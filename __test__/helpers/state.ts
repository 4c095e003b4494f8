/** Read-outs of the public registry state, for tests that check nothing changed after an error. */
import { SpanRegistry, enabledSpanGroups, isSpanGroupEnabled, onWarning, pendingSpanGroups, type NemoLensWarning } from '../../src/index';

export interface PublicState {
  namespaces: string[];
  groups: string[];
  presets: Array<[string, string[]]>;
  enabled: string[];
  pending: string[];
  /** The JS gate table agrees with the core for every registered or enabled name. */
  gates: Array<[string, boolean]>;
}

export function publicState(): PublicState {
  const enabled = [...enabledSpanGroups()];
  const groups = [...SpanRegistry.groups()];
  const names = [...new Set([...groups, ...enabled])];
  return {
    namespaces: SpanRegistry.namespaces(),
    groups,
    presets: [...SpanRegistry.presets()].map(([name, members]) => [name, [...members]]),
    enabled,
    pending: [...pendingSpanGroups()],
    gates: names.map((name) => [name, isSpanGroupEnabled(name)]),
  };
}

/** Collect warnings (code and message) until `stop()`. */
export function captureWarnings(): { warnings: NemoLensWarning[]; codes: () => string[]; stop: () => void } {
  const warnings: NemoLensWarning[] = [];
  const stop = onWarning((warning) => warnings.push(warning));
  return { warnings, codes: () => warnings.map((w) => w.code), stop };
}
