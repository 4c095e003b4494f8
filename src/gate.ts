/**
 * The hot path: is a span group enabled? Answered entirely in JavaScript.
 *
 * A call into a napi function costs 15-110 ns on Node 20; reading a field of a JS object
 * costs under 1 ns. So resolution happens in the core (Rust or the twin), which writes the
 * enabled set as a bitset into a JS-owned Uint32Array; `syncGates` diffs that bitset against
 * the previous one and updates the JS structures that instrumentation sites read:
 *   - gate handles (`spanGroup(name)`): a plain `enabled` field on objects of one class, so
 *     every site stays monomorphic: +0.0-0.5 ns a check, whatever the number of groups;
 *   - `few`, a summary for string groups (`managedSpan('step', …)`, `isSpanGroupEnabled`):
 *     a bit per enabled name length, then up to FEW_MAX enabled names compared by identity;
 *   - `table`: own key `name` is `true` iff enabled (keys are only set to false, never
 *     deleted), read only when more than FEW_MAX groups are enabled.
 * Why `few`: a keyed load `table[name]` inside managedSpan has one feedback slot for the whole
 * process; the second distinct name makes it megamorphic and from then on every string gate
 * costs a generic lookup, +5-15 ns, like `Set.has` (bench modes mega and realistic). A real
 * program passes many names and enables a few, so most disabled names fail the length test
 * (two loads and a mask), and the rest are compared with the few enabled names, which V8
 * compiles to pointer comparisons as long as both sides are internalized strings (literals
 * at call sites are; names from the core are internalized here). Measured with mitata on
 * Node 20 (2-core x86_64, bench/): +0.2 ns in mode mono, +1 ns in mode realistic, against
 * +9 ns for a naive `Set.has` wrapper there.
 * The table's prototype is an empty null-prototype object, so inherited keys (`constructor`,
 * `__proto__`, `toString`) are never mistaken for enabled groups; `few` compares exact names.
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

/**
 * The hot-path summary of the enabled set, rewritten by every resolution:
 *   - `lengths`: bit `1 << name.length` (JavaScript shifts count mod 32) set for every enabled
 *     name, so most disabled names are rejected by their length alone, without a lookup;
 *   - `count` enabled names; when at most FEW_MAX, they are `s0..s3` (unused slots repeat
 *     `s0`, so every slot holds an enabled, internalized name), compared by identity;
 *     above FEW_MAX the table answers.
 */
export interface FewEnabled {
  lengths: number;
  count: number;
  s0: string;
  s1: string;
  s2: string;
  s3: string;
}

/** The largest enabled set answered by identity comparisons rather than the table. */
export const FEW_MAX = 4;

const table = shared.table;
const few = shared.few;

/**
 * Is the string group `name` enabled? The exact test behind the length filter, and only behind
 * it: `(few.lengths & (1 << name.length)) !== 0 && isStringEnabled(name)` (a name that passes
 * the filter means something is enabled, so the slots hold enabled names). Kept short: every
 * gate that inlines it pays its size against the caller's inlining budget.
 */
export function isStringEnabled(name: string): boolean {
  const summary = few;
  return summary.count > FEW_MAX ? table[name] === true : name === summary.s0 || name === summary.s1 || name === summary.s2 || name === summary.s3;
}

/** Exact, case-sensitive test; anything but an enabled name (including non-strings) is false. */
export function isSpanGroupEnabled(name: SpanGroupLike): boolean {
  if (typeof name === 'string') return (few.lengths & (1 << name.length)) !== 0 && isStringEnabled(name);
  return name != null && (name as SpanGroup).enabled === true;
}

/**
 * The internalized copy of `name` (a property key is always internalized, and Object.keys
 * returns the key itself): the hot path compares names with `===`, which V8 compiles to a
 * pointer comparison only while every string it has seen there is internalized, as string
 * literals at call sites are and names the core returns are not.
 */
function internalized(name: string): string {
  return Object.keys({ [name]: true })[0] ?? name;
}

/** The gate handle for `name` (one object per name and realm), for the hottest call sites. */
export function spanGroup(name: string): SpanGroup {
  if (typeof name !== 'string') {
    throw new NemoLensTypeError(`nemo-lens: spanGroup(name) needs a string, got ${describe(name)}.`);
  }
  let handle = shared.handles.get(name);
  if (handle === undefined) {
    handle = new SpanGroupHandle(name, isSpanGroupEnabled(name));
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
    for (const name of core.names(mirror.names.length)) mirror.names.push(internalized(name));
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
  writeFew(next, mirror.names);
}

/** Refill `few` from the enabled bitset (cold path: O(names / 32 + enabled)). */
function writeFew(bits: Uint32Array, names: readonly string[]): void {
  const found: string[] = [];
  let lengths = 0;
  let count = 0;
  for (let word = 0; word < bits.length; word++) {
    let rest = bits[word]!;
    while (rest !== 0) {
      const bit = 31 - Math.clz32(rest);
      rest &= ~(1 << bit);
      const name = names[(word << 5) | bit]!;
      lengths |= 1 << name.length;
      if (++count <= FEW_MAX) found.push(name);
    }
  }
  // Slots first, then the count and the filter that let readers reach them.
  const first = found[0] ?? '';
  few.s0 = first;
  few.s1 = found[1] ?? first;
  few.s2 = found[2] ?? first;
  few.s3 = found[3] ?? first;
  few.count = count;
  few.lengths = lengths;
}
