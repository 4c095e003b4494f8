/**
 * The hot path: is a span group enabled? Answered entirely in JavaScript.
 *
 * A call into a napi function costs 15-110 ns on Node 20; reading a field of a JS object
 * costs under 1 ns. So resolution happens in the core (Rust or the twin), which writes the
 * enabled set as a bitset into a JS-owned Uint32Array; `syncGates` diffs that bitset against
 * the previous one and updates two JS structures that instrumentation sites read:
 *   - gate handles (`spanGroup(name)`): a plain `enabled` field on objects of one class, so
 *     every site stays monomorphic: +0.0-0.5 ns a check, whatever the number of groups;
 *   - `table`: own key `name` is `true` iff enabled (keys are only set to false, never
 *     deleted); string groups and `isSpanGroupEnabled(name)` read it. Where V8 sees one name
 *     at a site (inlined, constant key) the load folds to a map check: +0.0 ns, against
 *     +4-6 ns for `Set.has`. Where one function sees many names the keyed load goes
 *     megamorphic and costs +5-8 ns, like any hash lookup (Set.has, Map.get). Hence: use a
 *     handle at the hottest sites.
 * The table's prototype is an empty null-prototype object, so inherited keys (`constructor`,
 * `__proto__`, `toString`) are never mistaken for enabled groups.
 * Measured with mitata on Node 20 (2-core x86_64); bench/ reproduces the numbers.
 */
import { NemoLensTypeError, describe } from './errors';
import { shared } from './global';

/** A gate handle: `enabled` is kept current by every resolution. */
export interface SpanGroup {
  readonly name: string;
  readonly enabled: boolean;
}

/** A group argument: a name or a gate handle. */
export type SpanGroupLike = string | SpanGroup;

class SpanGroupHandle implements SpanGroup {
  constructor(
    readonly name: string,
    public enabled: boolean,
  ) {}

  toString(): string {
    return `SpanGroup(${this.name}: ${this.enabled ? 'enabled' : 'disabled'})`;
  }
}

const table = shared.table;

/** Exact, case-sensitive test; anything but an enabled name (including non-strings) is false. */
export function isSpanGroupEnabled(name: SpanGroupLike): boolean {
  if (typeof name === 'string') return table[name] === true;
  return name != null && (name as SpanGroup).enabled === true;
}

/** The gate handle for `name` (one object per name and realm), for the hottest call sites. */
export function spanGroup(name: string): SpanGroup {
  if (typeof name !== 'string') {
    throw new NemoLensTypeError(`nemo-lens: spanGroup(name) needs a string, got ${describe(name)}.`);
  }
  let handle = shared.handles.get(name);
  if (handle === undefined) {
    handle = new SpanGroupHandle(name, table[name] === true);
    shared.handles.set(name, handle);
  }
  return handle;
}

/** syncGates' other bitset (never `mirror.bits` itself). */
let spare: Uint32Array = new Uint32Array(0);

/** Bring `table` and every handle in line with the core's enabled set. Cold path: O(names / 32). */
export function syncGates(): void {
  const { core, mirror, handles } = shared;
  const count = core.nameCount();
  if (count > mirror.names.length) {
    for (const name of core.names(mirror.names.length)) mirror.names.push(name);
  }
  const words = (count + 31) >>> 5;
  // Double-buffered: the bitset before the last one is reused when it is the right size.
  const next = spare.length === words ? spare : new Uint32Array(words);
  core.writeEnabled(next);
  const previous = mirror.bits;
  spare = previous;
  for (let word = 0; word < next.length; word++) {
    let changed = next[word]! ^ (previous[word] ?? 0);
    while (changed !== 0) {
      const bit = 31 - Math.clz32(changed);
      changed &= ~(1 << bit);
      const name = mirror.names[(word << 5) | bit]!;
      const enabled = (next[word]! & (1 << bit)) !== 0;
      table[name] = enabled;
      const handle = handles.get(name) as SpanGroupHandle | undefined;
      if (handle !== undefined) handle.enabled = enabled;
    }
  }
  mirror.bits = next;
}
