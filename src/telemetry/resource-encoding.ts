/**
 * `encodeResourceAttributes`: an `OTEL_RESOURCE_ATTRIBUTES` value that carries attributes to
 * a child process, as the reference's `encode_resource_attributes(attributes, inherited)`.
 *
 * A spawned worker or an exec'd relaunch has no `setupTelemetry` call site its parent can
 * reach; `OTEL_RESOURCE_ATTRIBUTES` is the channel that survives, in Node and Python alike,
 * so it is how such a process learns its own identity (`dl.rank=3` gives it
 * `service.instance.id = <run>-rank3`, see resource.ts). The rules are the reference's:
 *   - values are percent-encoded (everything but `A-Za-z0-9_.-~`, as Python's
 *     `quote(value, safe='')`): an unescaped comma would cut a value *and* invent a key;
 *   - keys are stripped and written as they are (the SDKs decode only values); a key that
 *     is empty or holds `,` or `=` has no representation and is dropped with a warning;
 *   - `undefined`/`null` values are skipped; strings, numbers, booleans and bigints are
 *     written as text; anything else (objects, arrays) is dropped with a warning, because
 *     the channel is string-typed and a rendering is not a round trip;
 *   - the inherited value (default: the live `process.env.OTEL_RESOURCE_ATTRIBUTES`) is kept
 *     byte for byte, minus blank segments and the keys this call supersedes, so calling it
 *     in a loop does not pile up copies. Pass `''` to start clean.
 * It returns the value and never touches the environment.
 */
import { NemoLensTypeError, describe } from '../errors';
import { emitWarning } from '../warnings';
import { stripWhitespace } from '../whitespace';

export const OTEL_RESOURCE_ATTRIBUTES = 'OTEL_RESOURCE_ATTRIBUTES';

export type EncodableValue = string | number | boolean | bigint | null | undefined;

/** Attribute name to value, as a plain object or a Map. */
export type EncodableAttributes = Readonly<Record<string, EncodableValue>> | ReadonlyMap<string, EncodableValue>;

/** Python's `quote(value, safe='')`: UTF-8 percent-encoding of all but the unreserved characters. */
function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function dropped(message: string): void {
  emitWarning('NEMO_LENS_RESOURCE_ATTRIBUTE_DROPPED', `nemo-lens: ${message}`);
}

function entriesOf(attributes: unknown): Array<[unknown, unknown]> {
  if (attributes instanceof Map) return [...attributes.entries()];
  if (attributes !== null && typeof attributes === 'object' && !Array.isArray(attributes)) return Object.entries(attributes);
  throw new NemoLensTypeError(`nemo-lens: encodeResourceAttributes(attributes) needs an object or a Map of attribute name to value, got ${describe(attributes)}.`);
}

/**
 * An `OTEL_RESOURCE_ATTRIBUTES` value: `inherited` (default: this process's) with
 * `attributes` added, each replacing an earlier occurrence of its key.
 */
export function encodeResourceAttributes(attributes: EncodableAttributes, inherited?: string): string {
  if (inherited !== undefined && typeof inherited !== 'string') {
    throw new NemoLensTypeError(`nemo-lens: encodeResourceAttributes(attributes, inherited) needs inherited as a string, got ${describe(inherited)}.`);
  }
  // Read live, not at import: a trainer learns its rank after importing nemo-lens.
  const base = inherited ?? process.env[OTEL_RESOURCE_ATTRIBUTES] ?? '';
  const encoded: string[] = [];
  const superseded = new Set<string>();
  for (const [key, value] of entriesOf(attributes)) {
    if (value === undefined || value === null) continue;
    if (typeof key !== 'string') {
      dropped(`resource attribute key ${describe(key)} is not a string and was dropped.`);
      continue;
    }
    const name = stripWhitespace(key);
    if (name === '' || name.includes(',') || name.includes('=')) {
      dropped(`resource attribute key ${describe(key)} cannot be carried in ${OTEL_RESOURCE_ATTRIBUTES} and was dropped; "," and "=" have no encoding in this format.`);
      continue;
    }
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean' && typeof value !== 'bigint') {
      dropped(
        `resource attribute "${name}" has ${describe(value)} as its value, which cannot survive ${OTEL_RESOURCE_ATTRIBUTES} and was dropped; only strings, numbers and booleans round-trip.`,
      );
      continue;
    }
    let text: string;
    try {
      text = percentEncode(String(value));
    } catch {
      dropped(`resource attribute "${name}" holds a lone surrogate, which has no UTF-8 encoding, and was dropped.`);
      continue;
    }
    superseded.add(name);
    encoded.push(`${name}=${text}`);
  }
  const kept: string[] = [];
  for (const segment of base.split(',')) {
    if (stripWhitespace(segment) === '') continue;
    const eq = segment.indexOf('=');
    if (superseded.has(stripWhitespace(eq < 0 ? segment : segment.slice(0, eq)))) continue;
    kept.push(segment);
  }
  return [...kept, ...encoded].join(',');
}
