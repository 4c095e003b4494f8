/**
 * Type-checked with no Node types at all (no @types/node installed, `types: []`, lib es2022,
 * skipLibCheck false), under every module resolution and TypeScript 5.0, this project's and
 * the newest: the shipped declarations must stand alone. Checked as this file (CommonJS under
 * node16/nodenext) and as a copy, standalone.mts (ESM). The @ts-expect-error lines prove the
 * types are real, not `any`.
 */
import lens, { envWithTraceContext, managedSpan, nativeLoadError, SpanRegistry, spanGroup, traceFn, type SpanGroup } from 'nemo-lens';
import fallbacks, * as namedFallbacks from 'nemo-lens/fallbacks';
import testing, { setupTestTelemetry } from 'nemo-lens/testing';

export const env: Record<string, string | undefined> = envWithTraceContext({ PATH: '/bin' });
// @ts-expect-error envWithTraceContext returns a record of strings, not any
export const notAny: number = envWithTraceContext();
export const why: Error | undefined = nativeLoadError;

SpanRegistry.register('standalone', ['step'], { default: ['step'] }, { allowOverride: true });
const STEP: SpanGroup = spanGroup('step');
export const result: number = managedSpan(STEP, 'x', () => 1);
export const viaDefault: number = lens.managedSpan(STEP, 'x', () => 1);
export const darkDefault: boolean = fallbacks.isSpanGroupEnabled('step') || namedFallbacks.isSpanGroupEnabled('step');
export const spans: number = testing.setupTestTelemetry === setupTestTelemetry ? 1 : 0;

export class Standard {
  @traceFn('step', 'standard')
  run(n: number): number {
    return n;
  }
}
export const wrapped: (n: number) => Promise<number> = traceFn('step', 'wrapped')(async (n: number) => n);
