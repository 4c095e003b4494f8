/**
 * Argument checks shared by the facade. Backends only ever see well-formed strings and
 * arrays: wrong types fail here with a coded TypeError, before any state changes.
 */
import { NemoLensTypeError, describe } from './errors';

// Brand checks by the built-ins' own accessors, which throw for anything without the internal
// slot, whatever its prototype or realm: what node:util/types answers, without importing a
// Node built-in at load time (an esbuild ESM bundle cannot require one).
const mapSize = Object.getOwnPropertyDescriptor(Map.prototype, 'size')!.get!;
const stringValueOf = String.prototype.valueOf;

function isMap(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  try {
    mapSize.call(value);
    return true;
  } catch {
    return false;
  }
}

function isStringObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  try {
    stringValueOf.call(value);
    return true;
  } catch {
    return false;
  }
}

/** A name: a string with no lone surrogates (both backends must see the same characters). */
export function checkName(value: unknown, what: string): string {
  if (typeof value !== 'string') {
    throw new NemoLensTypeError(`nemo-lens: ${what} must be a string, got ${describe(value)}.`);
  }
  if (!value.isWellFormed()) {
    throw new NemoLensTypeError(`nemo-lens: ${what} ${describe(value)} contains a lone surrogate; pass well-formed Unicode.`);
  }
  return value;
}

/** An iterable of names; a string is refused (the reference would split it into characters). */
export function checkNames(value: unknown, what: string): string[] {
  if (typeof value === 'string' || isStringObject(value)) {
    throw new NemoLensTypeError(
      `nemo-lens: ${what} must be an array (or iterable) of names, got the string ${describe(value)}; wrap it: [${describe(value)}].`,
    );
  }
  if (value == null || typeof (value as Iterable<unknown>)[Symbol.iterator] !== 'function') {
    throw new NemoLensTypeError(`nemo-lens: ${what} must be an array (or iterable) of names, got ${describe(value)}.`);
  }
  const names: string[] = [];
  for (const item of value as Iterable<unknown>) names.push(checkName(item, `each of ${what}`));
  return names;
}

/** Presets as a Map or a plain object of name → iterable of group names. */
export function checkPresets(value: unknown, namespace: string): Array<[string, string[]]> | null {
  if (value == null) return null;
  let entries: Iterable<[unknown, unknown]>;
  // isMap, not instanceof: a Map made in another realm (a vm context) is still a Map. Other
  // iterables (Set, arrays, generators) are refused: Object.entries would drop them silently.
  if (isMap(value)) entries = value as Map<unknown, unknown>;
  else if (typeof value === 'object' && typeof (value as Partial<Iterable<unknown>>)[Symbol.iterator] !== 'function') {
    entries = Object.entries(value);
  } else {
    throw new NemoLensTypeError(
      `nemo-lens: presets of namespace "${namespace}" must be an object or a Map of preset name to group names, got ${describe(value)}.`,
    );
  }
  const presets: Array<[string, string[]]> = [];
  for (const [name, members] of entries) {
    const presetName = checkName(name, `a preset name of namespace "${namespace}"`);
    presets.push([presetName, checkNames(members, `the members of preset ${describe(presetName)}`)]);
  }
  return presets;
}

export function checkOptionalBoolean(value: unknown, what: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new NemoLensTypeError(`nemo-lens: ${what} must be a boolean, got ${describe(value)}.`);
  return value;
}

/** Options objects: undefined or a non-null object. */
export function checkOptions<T extends object>(value: unknown, what: string): Partial<T> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object') {
    throw new NemoLensTypeError(`nemo-lens: ${what} must be an object, got ${describe(value)}.`);
  }
  return value as Partial<T>;
}
