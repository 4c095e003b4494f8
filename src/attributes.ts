/**
 * Attribute hygiene for spans: drop what OpenTelemetry cannot carry and redact what must not
 * leave the process. Call it inside `if (span)` so a disabled site pays nothing.
 */
import type { AttributeValue, Attributes, Span } from '@opentelemetry/api';

/** Attribute keys whose string values are redacted by default (matched case-insensitively, also as a `.`/`_`/`-` suffix). */
export const DEFAULT_REDACT_KEYS: readonly string[] = Object.freeze([
  'prompt',
  'input_text',
  'output_text',
  'text',
  'password',
  'token',
  'secret',
  'key',
]);

export const REDACTED = '[REDACTED]';

/** The stand-in for a redacted value: strings are replaced, anything else is kept. */
export function redactValue<T>(value: T): T | typeof REDACTED {
  return typeof value === 'string' ? REDACTED : value;
}

type Scalar = string | number | boolean;

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function shouldRedact(key: string, redactKeys: readonly string[]): boolean {
  const lower = key.toLowerCase();
  for (const candidate of redactKeys) {
    const target = candidate.toLowerCase();
    if (lower === target) return true;
    if (lower.endsWith(target)) {
      const separator = lower.charAt(lower.length - target.length - 1);
      if (separator === '.' || separator === '_' || separator === '-') return true;
    }
  }
  return false;
}

/** A value OpenTelemetry accepts: a scalar, or an array of scalars of one type; else undefined. */
function sanitize(value: unknown): AttributeValue | undefined {
  if (isScalar(value)) return value;
  if (Array.isArray(value) && value.every(isScalar)) {
    const kinds = new Set(value.map((item) => typeof item));
    return kinds.size <= 1 ? (value.slice() as AttributeValue) : value.map(String);
  }
  return undefined;
}

/** The value to set for `key`, or undefined to skip it (unsupported, or nothing to set). */
function cleanValue(key: string, raw: unknown, redactKeys: readonly string[]): AttributeValue | undefined {
  const value = sanitize(raw);
  if (value === undefined || !shouldRedact(key, redactKeys)) return value;
  return (Array.isArray(value) ? value.map(redactValue) : redactValue(value)) as AttributeValue;
}

/**
 * The attributes nemo-lens sets itself (span options of `managedSpan`, `traceFn`, `spanCm`),
 * cleaned and redacted exactly as `safeSetSpanAttributes` would set them. Called on the
 * enabled path only; never throws.
 */
export function cleanAttributes(
  attributes: Readonly<Record<string, unknown>> | undefined,
  redactKeys: readonly string[] = DEFAULT_REDACT_KEYS,
): Attributes {
  const cleaned: Attributes = {};
  if (attributes == null) return cleaned;
  try {
    for (const key of Object.keys(attributes)) {
      const value = cleanValue(key, attributes[key], redactKeys);
      if (value !== undefined) cleaned[key] = value;
    }
  } catch {
    // A hostile attributes object (a throwing getter, a revoked proxy) loses its attributes,
    // never the span nor the user's call.
  }
  return cleaned;
}

/**
 * Set each attribute that OpenTelemetry can carry, skipping `undefined`/`null` and
 * non-scalar values, keeping arrays of scalars, and redacting string values of `redactKeys`.
 * Accepts an `undefined` span (a disabled site) and never throws.
 */
export function safeSetSpanAttributes(
  span: Span | undefined,
  attributes: Readonly<Record<string, unknown>> | undefined,
  redactKeys: readonly string[] = DEFAULT_REDACT_KEYS,
): void {
  if (span === undefined || attributes == null) return;
  try {
    for (const key of Object.keys(attributes)) {
      const value = cleanValue(key, attributes[key], redactKeys);
      if (value !== undefined) span.setAttribute(key, value);
    }
  } catch {
    // Attributes are best effort: never fail the instrumented code over them.
  }
}
