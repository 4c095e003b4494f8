/**
 * How registration and resolution grow with the registry: N groups over M namespaces
 * (M = N/100 clamped to 1..1000, so 10 -> 1, 100 -> 1, 1k -> 10, 10k -> 100, 100k -> 1000),
 * each namespace with two presets (`default`: its first group; `per_step`: its first half),
 * resolved against the spec `default,per_step` (half of all groups end up enabled).
 *
 * Two layers, each on the backend the child forced:
 *   - `api`: the public API (`SpanRegistry.register` per namespace, then `setSpanGroupSpec`),
 *     which also checks arguments and brings the JS gate table and handles up to date;
 *   - `core`: the CoreState alone (`JsState` or the napi `NativeState` from `loadNative()`):
 *     `register` per namespace, `setSpec`, `writeEnabled` into a bitset.
 * A timed call starts from an empty registry (the reset before it is not timed).
 */
import type { CoreState } from '../../src/backends/types';
import { loadJsState, loadNativeModule, loadNemoLens } from '../lib/package';
import type { CaseContext, CaseModule, Prepared } from './types';

export const SCALE_SIZES = [10, 100, 1_000, 10_000, 100_000] as const;
export const SPEC = 'default,per_step';

export interface Namespace {
  readonly name: string;
  readonly groups: string[];
  readonly presets: Array<[string, string[]]>;
}

export function namespacesFor(size: number): number {
  return Math.min(1000, Math.max(1, Math.round(size / 100)));
}

export function makeRegistry(size: number): Namespace[] {
  const count = namespacesFor(size);
  const per = size / count;
  return Array.from({ length: count }, (_, i) => {
    const groups = Array.from({ length: per }, (_, j) => `ns${i}_g${j}`);
    return { name: `lib${i}`, groups, presets: [['default', [groups[0]!]], ['per_step', groups.slice(0, Math.ceil(per / 2))]] };
  });
}

function sizeOf(context: CaseContext): number {
  const size = context.params['size'];
  if (size === undefined || !Number.isInteger(size) || size < 1) throw new Error('scale cases need params.size');
  return size;
}

function expectEnabled(actual: number, size: number): void {
  const expected = size / 2;
  if (actual !== expected) throw new Error(`scale: ${actual} groups enabled, expected ${expected}`);
}

export interface TimedPrepared extends Prepared {
  /** Untimed, before every timed call of `fn`. */
  readonly before: () => void;
}

export const cases: CaseModule['cases'] = {
  /** Register + resolve through the public API (argument checks, gate table and handles included). */
  api(context): TimedPrepared {
    const size = sizeOf(context);
    const registry = makeRegistry(size);
    const presets = registry.map((ns) => Object.fromEntries(ns.presets));
    const nemo = loadNemoLens();
    if (context.backend !== undefined && nemo.backend !== context.backend) throw new Error(`expected backend ${context.backend}`);
    const { SpanRegistry, enabledSpanGroups, setEnabledSpanGroups, setSpanGroupSpec } = nemo;
    return {
      before: () => {
        setEnabledSpanGroups([]); // drops the retained spec, so registering does not re-resolve it
        SpanRegistry.clear();
      },
      fn: () => {
        for (let i = 0; i < registry.length; i++) SpanRegistry.register(registry[i]!.name, registry[i]!.groups, presets[i]);
        setSpanGroupSpec(SPEC);
      },
      check: () => expectEnabled(enabledSpanGroups().size, size),
    };
  },

  /** Register + resolve on the CoreState alone, with a fresh state per timed call. */
  core(context): TimedPrepared {
    const size = sizeOf(context);
    const registry = makeRegistry(size);
    let create: () => CoreState;
    if (context.backend === 'native') {
      const loaded = loadNativeModule().loadNative();
      if (!loaded.ok) throw loaded.error;
      create = loaded.create;
    } else {
      const { JsState } = loadJsState();
      create = () => new JsState();
    }
    let state = create();
    let bits = new Uint32Array(0);
    return {
      before: () => {
        state = create();
      },
      fn: () => {
        for (const ns of registry) state.register(ns.name, ns.groups, ns.presets, false);
        state.setSpec(SPEC);
        bits = new Uint32Array((state.nameCount() + 31) >>> 5);
        state.writeEnabled(bits);
      },
      check: () => {
        let enabled = 0;
        for (const word of bits) {
          let w = word;
          while (w !== 0) {
            w &= w - 1;
            enabled++;
          }
        }
        expectEnabled(enabled, size);
      },
    };
  },
};
