/**
 * `nemo-lens/fallbacks`: no-op twins of the instrumentation API, with the same signatures
 * (checked by __test__/fallbacks.spec.ts) and no runtime dependency: no native core, no
 * OpenTelemetry. For code that must run where telemetry is compiled out:
 *
 *     const lens = process.env.NO_TELEMETRY ? require('nemo-lens/fallbacks') : require('nemo-lens');
 *
 * Every gate is closed, so `managedSpan` and `spanCm` call `fn(undefined)` and `traceFn`
 * returns the function itself.
 */
import type { Span } from '@opentelemetry/api';

import type { SpanGroup, SpanGroupLike } from './gate';
import type { GateHandles, Names, NamesOf, Presets, RegisterOptions, Resolved } from './registry';
import type { ManagedSpanOptions, TraceFnDecorator } from './span';

export function isSpanGroupEnabled(_name: SpanGroupLike): boolean {
  return false;
}

export function managedSpan<T>(group: SpanGroupLike, name: string, fn: (span: Span | undefined) => T): T;
export function managedSpan<T>(group: SpanGroupLike, name: string, options: ManagedSpanOptions, fn: (span: Span | undefined) => T): T;
export function managedSpan<T>(
  _group: SpanGroupLike,
  _name: string,
  a: ManagedSpanOptions | ((span: Span | undefined) => T),
  b?: (span: Span | undefined) => T,
): T {
  return typeof a === 'function' ? a(undefined) : b!(undefined);
}

export function spanCm<T>(name: string, fn: (span: Span | undefined) => T): T;
export function spanCm<T>(name: string, options: ManagedSpanOptions, fn: (span: Span | undefined) => T): T;
export function spanCm<T>(_name: string, a: ManagedSpanOptions | ((span: Span | undefined) => T), b?: (span: Span | undefined) => T): T {
  return typeof a === 'function' ? a(undefined) : b!(undefined);
}

export function traceFn(_group: SpanGroupLike, _name: string, _options?: ManagedSpanOptions): TraceFnDecorator {
  // The function unchanged; a legacy method decorator (prototype, key, descriptor) gets its descriptor back.
  return function decorate(fn: unknown, _context?: unknown, descriptor?: unknown): unknown {
    return arguments.length === 3 && typeof descriptor === 'object' && descriptor !== null ? descriptor : fn;
  } as TraceFnDecorator;
}

export function safeSetSpanAttributes(
  _span: Span | undefined,
  _attributes: Readonly<Record<string, unknown>> | undefined,
  _redactKeys: readonly string[] = [],
): void {}

const nothing: ReadonlySet<string> = new Set();

/** Closed gate handles, keyed like the real ones (by each name as given). */
function closedHandles(groups: Names): Record<string, SpanGroup> {
  const handles = Object.create(null) as Record<string, SpanGroup>;
  if (typeof groups === 'object' && groups !== null && typeof (groups as Partial<Iterable<unknown>>)[Symbol.iterator] === 'function') {
    for (const name of groups) if (typeof name === 'string') handles[name] = Object.freeze({ name: name.trim().toLowerCase(), enabled: false });
  }
  return Object.freeze(handles);
}

export const SpanRegistry = Object.freeze({
  register<const G extends Names>(_namespace: string, groups: G, _presets?: Presets, _options?: RegisterOptions): GateHandles<NamesOf<G>> {
    return closedHandles(groups) as GateHandles<NamesOf<G>>;
  },
  unregister(_namespace: string): void {},
  clear(): void {},
  groups(): ReadonlySet<string> {
    return nothing;
  },
  namespaces(): string[] {
    return [];
  },
  presets(): ReadonlyMap<string, ReadonlySet<string>> {
    return new Map([['all', nothing]]);
  },
  resolve(_spec: string): Resolved {
    return { enabled: nothing, pending: nothing };
  },
});

/**
 * The default export: every runtime export in one object, as `@opentelemetry/api` offers
 * (`import lens from 'nemo-lens/fallbacks'`, or `require('nemo-lens/fallbacks').default`). Its type is this module's
 * own, less `default`: leaving an export out of it fails to compile.
 */
const lens: Omit<typeof import('./fallbacks'), 'default'> = {
  isSpanGroupEnabled,
  managedSpan,
  spanCm,
  traceFn,
  safeSetSpanAttributes,
  SpanRegistry,
};
export default lens;
