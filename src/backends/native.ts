/**
 * The Rust core through its napi-rs binding. napi-rs generates `native/binding.cjs`, which
 * tries `NAPI_RS_NATIVE_LIBRARY_PATH`, the local `nemo-lens.<platform>.node`, then the
 * `nemo-lens-<platform>` package; this wrapper only adds "keep the reason when none loads",
 * as one line that names every place tried (the generated message blames an npm bug instead).
 * find-binding.ts finds that loader, in the package or from a bundle.
 */
import { findBinding } from './find-binding';
import type { CoreState, Diagnostic, Outcome, Resolution } from './types';

/** `null` (nothing to report), `["error", code, message]` or `["warnings", code, message, …]`. */
type PackedOutcome = string[] | null;
/** The names joined (their lengths are in `io`), or how many words `io` needs. */
type PackedNames = string | number;

/**
 * The napi class (`src/binding/lib.rs`), whose packed methods `NativeCore` below turns into
 * `CoreState`: a list of names crosses
 * napi as one string plus UTF-16 lengths in `io` instead of one napi string per name; an
 * outcome with nothing to report is `null` instead of an object built field by field; `io`,
 * one `Uint32Array` reused from call to call, carries the lengths both ways (`io[0]`: how many
 * follow) and, after every mutating call, the name count in `io[0]`.
 */
interface NativeState {
  registerPacked(namespace: string, text: string, io: Uint32Array, allowOverride: boolean): PackedOutcome;
  unregisterPacked(namespace: string, io: Uint32Array): PackedOutcome;
  clearPacked(io: Uint32Array): PackedOutcome;
  setSpecPacked(spec: string, io: Uint32Array): PackedOutcome;
  pinPacked(text: string, io: Uint32Array): PackedOutcome;
  setSetupDone(done: boolean): void;
  reset(): void;
  groupsPacked(io: Uint32Array): PackedNames;
  namespacesPacked(io: Uint32Array): PackedNames;
  presetsPacked(io: Uint32Array): PackedNames;
  resolvePacked(spec: string, io: Uint32Array): PackedNames;
  enabledPacked(io: Uint32Array): PackedNames;
  pendingPacked(io: Uint32Array): PackedNames;
  namesPacked(from: number, io: Uint32Array): PackedNames;
  writeEnabledPacked(io: Uint32Array, words: number): void;
}

interface Binding {
  NativeState: new () => NativeState;
}

function outcome(packed: PackedOutcome): Outcome {
  if (packed === null) return { warnings: [] };
  const diagnostics: Diagnostic[] = [];
  for (let i = 1; i + 1 < packed.length; i += 2) diagnostics.push({ code: packed[i]!, message: packed[i + 1]! });
  return packed[0] === 'error' ? { error: diagnostics[0]!, warnings: [] } : { warnings: diagnostics };
}

/** `lengths[first..end)` cut `text` into names, the first starting at `at`. */
function unpack(text: string, lengths: Uint32Array, first: number, end: number, at = 0): string[] {
  const names: string[] = [];
  for (let i = first; i < end; i++) {
    const next = at + lengths[i]!;
    names.push(text.slice(at, next));
    at = next;
  }
  return names;
}

/**
 * The `io` buffer of every NativeCore of this realm (calls are synchronous, and each reads what
 * it needs from `io` before returning): allocated once, grown when a call needs more, and so
 * always off V8's heap, which napi needs (a fresh small typed array is moved off it first).
 */
let scratch = new Uint32Array(1024);

/** `io`, at least `words` long. */
function ioFor(words: number): Uint32Array {
  if (scratch.length < words) scratch = new Uint32Array(Math.max(words, 2 * scratch.length));
  return scratch;
}

/** Lengths of `names` into `io` from `at`; returns where the next one goes. */
function lengthsInto(io: Uint32Array, names: readonly string[], at: number): number {
  for (let i = 0; i < names.length; i++) io[at++] = names[i]!.length;
  return at;
}

/** The CoreState over the napi class: packs arguments and unpacks results, nothing else. */
class NativeCore implements CoreState {
  /** Left in `io[0]` by every mutating call. */
  private count = 0;

  constructor(private readonly native: NativeState) {}

  private done(packed: PackedOutcome): Outcome {
    this.count = scratch[0]!;
    return outcome(packed);
  }

  /** A list read-out: the call, retried once with a larger `io` when it says it needs one. */
  private list(call: (io: Uint32Array) => PackedNames): string {
    let packed = call(scratch);
    if (typeof packed === 'number') packed = call(ioFor(packed)) as string;
    return packed;
  }

  register(namespace: string, groups: string[], presets: Array<[string, string[]]> | null, allowOverride: boolean): Outcome {
    const presetCount = presets === null ? 0 : presets.length;
    let words = 3 + presetCount + groups.length;
    for (let p = 0; p < presetCount; p++) words += 1 + presets![p]![1].length;
    // io: [words that follow, groupCount, presetCount, member count per preset, one length per name]
    const io = ioFor(words);
    io[0] = words - 1;
    io[1] = groups.length;
    io[2] = presetCount;
    let at = lengthsInto(io, groups, 3 + presetCount);
    // One join of every name: a flat string, which napi copies out directly (concatenating
    // the pieces instead makes a rope that V8 flattens first, +0.5 µs at 10 groups).
    const parts = presetCount === 0 ? groups : groups.slice();
    for (let p = 0; p < presetCount; p++) {
      const preset = presets![p]!;
      const name = preset[0];
      const members = preset[1];
      io[3 + p] = members.length;
      io[at++] = name.length;
      at = lengthsInto(io, members, at);
      parts.push(name);
      for (let m = 0; m < members.length; m++) parts.push(members[m]!);
    }
    const text = parts.join('');
    return this.done(this.native.registerPacked(namespace, text, io, allowOverride));
  }

  unregister(namespace: string): Outcome {
    return this.done(this.native.unregisterPacked(namespace, scratch));
  }

  clear(): Outcome {
    return this.done(this.native.clearPacked(scratch));
  }

  setSpec(spec: string): Outcome {
    return this.done(this.native.setSpecPacked(spec, scratch));
  }

  pin(names: string[]): Outcome {
    const io = ioFor(1 + names.length);
    io[0] = names.length;
    lengthsInto(io, names, 1);
    return this.done(this.native.pinPacked(names.join(''), io));
  }

  setSetupDone(done: boolean): void {
    this.native.setSetupDone(done);
  }

  reset(): void {
    this.native.reset(); // ids are kept, so the count stays
  }

  groups(): string[] {
    const text = this.list((io) => this.native.groupsPacked(io));
    return unpack(text, scratch, 1, 1 + scratch[0]!);
  }

  namespaces(): string[] {
    const text = this.list((io) => this.native.namespacesPacked(io));
    return unpack(text, scratch, 1, 1 + scratch[0]!);
  }

  presets(): Array<[string, string[]]> {
    const text = this.list((io) => this.native.presetsPacked(io));
    const io = scratch;
    // io: [entries, presetCount, member count per preset, then per preset: name, members]
    const count = io[1]!;
    const presets: Array<[string, string[]]> = [];
    let i = 2 + count;
    let at = 0;
    for (let p = 0; p < count; p++) {
      const name = text.slice(at, (at += io[i++]!));
      const end = i + io[2 + p]!;
      const members = unpack(text, io, i, end, at);
      for (; i < end; i++) at += io[i]!;
      presets.push([name, members]);
    }
    return presets;
  }

  resolve(spec: string): Resolution {
    const text = this.list((io) => this.native.resolvePacked(spec, io));
    const io = scratch;
    // io: [entries, enabledCount, enabled lengths, pending lengths]
    const end = 2 + io[1]!;
    const enabled = unpack(text, io, 2, end);
    let at = 0;
    for (let i = 2; i < end; i++) at += io[i]!;
    return { enabled, pending: unpack(text, io, end, 1 + io[0]!, at) };
  }

  enabled(): string[] {
    const text = this.list((io) => this.native.enabledPacked(io));
    return unpack(text, scratch, 1, 1 + scratch[0]!);
  }

  pending(): string[] {
    const text = this.list((io) => this.native.pendingPacked(io));
    return unpack(text, scratch, 1, 1 + scratch[0]!);
  }

  nameCount(): number {
    return this.count;
  }

  names(from: number): string[] {
    const text = this.list((io) => this.native.namesPacked(from, io));
    return unpack(text, scratch, 1, 1 + scratch[0]!);
  }

  writeEnabled(bits: Uint32Array): void {
    const words = bits.length;
    const io = ioFor(words);
    this.native.writeEnabledPacked(io, words);
    if (words > 64) bits.set(io.subarray(0, words));
    else for (let i = 0; i < words; i++) bits[i] = io[i]!;
  }
}

/** `bundled`: this copy runs from a bundle, so the loader was looked for at run time. */
export type NativeLoad = { ok: true; create: () => CoreState; bundled: boolean } | { ok: false; error: Error; bundled: boolean };

export function loadNative(): NativeLoad {
  const found = findBinding();
  if (!found.ok) return { ok: false, error: loadFailure(found.error), bundled: found.bundled };
  const binding = found.binding as unknown as Binding;
  if (typeof binding.NativeState !== 'function') {
    return { ok: false, error: new Error('the native binding loaded but exports no NativeState class'), bundled: found.bundled };
  }
  return { ok: true, create: () => new NativeCore(new binding.NativeState()), bundled: found.bundled };
}

/**
 * One line, the original error as its cause. The generated loader throws "Cannot find native
 * binding" with one error per attempt chained in `cause`, the last attempt first: name them in
 * the order tried. Any other error (say, native/binding.cjs not built) keeps its first line; a
 * require error adds its require stack on the following lines.
 */
function loadFailure(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  const firstLine = (message: string) => message.split('\n', 1)[0]!;
  if (!error.message.startsWith('Cannot find native binding')) return new Error(firstLine(error.message), { cause: error });
  const attempts: string[] = [];
  for (let cause = error.cause; cause instanceof Error; cause = cause.cause) attempts.unshift(firstLine(cause.message));
  return new Error(`no native binary for ${process.platform}-${process.arch} loaded (${attempts.join('; ')})`, { cause: error });
}
