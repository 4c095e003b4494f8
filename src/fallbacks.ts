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

import type { SpanGroupLike } from './gate';
import type { Names, Presets, RegisterOptions, Resolved } from './registry';
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
  return <F>(fn: F): F => fn;
}

export function safeSetSpanAttributes(
  _span: Span | undefined,
  _attributes: Readonly<Record<string, unknown>> | undefined,
  _redactKeys: readonly string[] = [],
): void {}

const nothing: ReadonlySet<string> = new Set();

export const SpanRegistry = Object.freeze({
  register(_namespace: string, _groups: Names, _presets?: Presets, _options?: RegisterOptions): void {},
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
