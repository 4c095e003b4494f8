/**
 * Candidate changes, measured the same way as the shipped code so the lead can decide with
 * numbers (nothing here is used by the package):
 *   - other representations of the string-keyed gate table, each read inside a function shaped
 *     like managedSpan's disabled path (own keys only; `constructor`, `__proto__` and odd values
 *     read as disabled; nothing throws): the current fast-mode object with a key-less prototype
 *     chain, a dictionary-mode null-prototype object, a Map, a Set of enabled names;
 *   - a traceFn wrapper that resolves a string group to its gate handle once, at wrap time,
 *     against a copy of the current wrapper (src/span.ts as of 5c21d7b).
 * In mode `mega` each function first sees eight other names (see ours.ts).
 */
import type { SpanGroup } from '../../src/gate';
import { loadNemoLens, loadShared } from '../lib/package';
import * as common from './types';
import type { CaseContext, CaseModule, Prepared } from './types';
import { makeWork, type Work } from './work';

const { GROUP, OTHER_GROUPS, SPAN_NAME } = common;
const ALL_GROUPS = [GROUP, ...OTHER_GROUPS, 'spare'];

type Gate = { readonly enabled: boolean } | string | null | undefined;
type Managed = (group: Gate, name: string, fn: (span: unknown) => number) => number;

/** Every representation starts with all names disabled and `step` switched on and off once. */
function fill(set: (name: string, value: boolean) => void): void {
  for (const name of ALL_GROUPS) set(name, false);
  set(GROUP, true);
  set(GROUP, false);
}

const TABLES: Readonly<Record<string, () => Managed>> = {
  /** What gate.ts does today: `table[name] === true` on a fast-mode object whose prototype chain has no keys. */
  'table-fast'() {
    const table = Object.create(Object.create(null) as object) as Record<string, boolean>;
    fill((name, value) => (table[name] = value));
    return (group, name, fn) =>
      (typeof group === 'string' ? table[group] !== true : group == null || group.enabled !== true) ? fn(undefined) : fn(name);
  },
  /** A null-prototype object forced into dictionary mode: hash lookups, no stub cache. */
  'table-dict'() {
    const table = Object.create(null) as Record<string, boolean>;
    table['x-force-dictionary'] = false;
    delete table['x-force-dictionary'];
    fill((name, value) => (table[name] = value));
    return (group, name, fn) =>
      (typeof group === 'string' ? table[group] !== true : group == null || group.enabled !== true) ? fn(undefined) : fn(name);
  },
  /** `map.get(name) === true`. */
  map() {
    const map = new Map<string, boolean>();
    fill((name, value) => map.set(name, value));
    return (group, name, fn) =>
      (typeof group === 'string' ? map.get(group) !== true : group == null || group.enabled !== true) ? fn(undefined) : fn(name);
  },
  /** `enabled.has(name)` on a Set of the enabled names. */
  set() {
    const enabled = new Set<string>();
    fill((name, value) => (value ? enabled.add(name) : enabled.delete(name)));
    return (group, name, fn) =>
      (typeof group === 'string' ? !enabled.has(group) : group == null || group.enabled !== true) ? fn(undefined) : fn(name);
  },
};

function tableCase(representation: string) {
  return (context: CaseContext): Prepared => {
    const { do_not_optimize } = context;
    const managed = TABLES[representation]!();
    const work = makeWork();
    if (context.mode === 'mega') {
      let sink = 0;
      for (let i = 0; i < 20_000; i++) sink ^= managed(OTHER_GROUPS[i & 7]!, SPAN_NAME, work);
      do_not_optimize(sink);
    }
    return {
      fn: () => do_not_optimize(managed(GROUP, SPAN_NAME, work)),
      check: () => {
        for (const odd of ['constructor', '__proto__', 'toString', undefined, null]) {
          if (managed(odd, SPAN_NAME, (span) => (span === undefined ? 0 : 1)) !== 0) throw new Error(`${representation}: ${String(odd)} read as enabled`);
        }
      },
    };
  };
}

/* eslint-disable @typescript-eslint/no-explicit-any -- wrappers accept any function, as traceFn does. */
type AnyFunction = (this: any, ...args: any[]) => any;

function traceCase(proposed: boolean) {
  return (context: CaseContext): Prepared => {
    const { do_not_optimize } = context;
    const nemo = loadNemoLens();
    const { SpanRegistry, managedSpan, setSpanGroupSpec, spanGroup } = nemo;
    SpanRegistry.register('bench', ALL_GROUPS);
    spanGroup(GROUP);
    setSpanGroupSpec(GROUP);
    setSpanGroupSpec('spare');
    const { table } = loadShared();

    /** The enabled path, outside the wrapper (as src/span.ts's runTraced). */
    function runTraced(group: string | SpanGroup, name: string, fn: AnyFunction, self: unknown, args: IArguments): unknown {
      return managedSpan<unknown>(group, name, () => fn.apply(self, args as unknown as unknown[]));
    }

    /** A copy of src/span.ts traceFn's wrapper as of 5c21d7b (same disabled path; enabled path through managedSpan). */
    function traceFnCurrent(group: string | SpanGroup, name: string) {
      return <F extends AnyFunction>(fn: F): F => {
        const traced = function (this: unknown): unknown {
          if (typeof group === 'string' ? table[group] !== true : group == null || group.enabled !== true) {
            return fn.apply(this, arguments as unknown as unknown[]);
          }
          return runTraced(group, name, fn, this, arguments);
        };
        return traced as unknown as F;
      };
    }

    /** The proposal: the same wrapper, with the gate handle resolved once when it is made. */
    function traceFnProposed(group: string | SpanGroup, name: string) {
      const gate = typeof group === 'string' ? spanGroup(group) : group;
      return <F extends AnyFunction>(fn: F): F => {
        const traced = function (this: unknown): unknown {
          if (gate == null || gate.enabled !== true) return fn.apply(this, arguments as unknown as unknown[]);
          return runTraced(gate, name, fn, this, arguments);
        };
        return traced as unknown as F;
      };
    }

    const make = proposed ? traceFnProposed : traceFnCurrent;
    const work: Work = makeWork();
    if (context.mode === 'mega') {
      const others = OTHER_GROUPS.map((name) => make(name, SPAN_NAME)(work));
      let sink = 0;
      for (let i = 0; i < 20_000; i++) sink ^= others[i & 7]!() as number;
      do_not_optimize(sink);
    }
    const traced = make(GROUP, SPAN_NAME)(work);
    return { fn: () => do_not_optimize(traced(undefined)) };
  };
}

export const cases: CaseModule['cases'] = {
  'table-fast': tableCase('table-fast'),
  'table-dict': tableCase('table-dict'),
  map: tableCase('map'),
  set: tableCase('set'),
  'tracefn-current': traceCase(false),
  'tracefn-proposed': traceCase(true),
};
