/**
 * A TypeScript consumer of the installed package, type-checked (never run) with
 * `tsc --noEmit` under moduleResolution node16, nodenext and bundler, by TypeScript 5.0 and by
 * this project's TypeScript. The package test checks it as this ESM file and as a CommonJS
 * copy (types.cts), so both halves of the exports map are read. The @ts-expect-error lines
 * prove the types are real, not `any`.
 */
import type { Span } from '@opentelemetry/api';
import {
  NemoLensConfig,
  NemoLensError,
  SpanRegistry,
  backend,
  managedSpan,
  nativeLoadError,
  onWarning,
  setSpanGroupSpec,
  setupTelemetry,
  spanGroup,
  traceFn,
  type BackendName,
  type NemoLensWarning,
  type SpanGroup,
  type TelemetryHandle,
} from 'nemo-lens';
import * as fallbacks from 'nemo-lens/fallbacks';
import { resetTelemetry, setupTestTelemetry } from 'nemo-lens/testing';

export const which: BackendName = backend;
// @ts-expect-error backend is 'native' | 'js'
export const notANumber: number = backend;
export const why: Error | undefined = nativeLoadError;

SpanRegistry.register('trainer', ['job', 'step'], { default: ['job'] }, { allowOverride: true });
export const namespaces: string[] = SpanRegistry.namespaces();
export const enabled: ReadonlySet<string> = SpanRegistry.resolve('default').enabled;
setSpanGroupSpec('default');

// register returns the gate handles, typed from the names: a typo is a compile error.
const G = SpanRegistry.register('typed', ['step', 'layer'] as const);
export const typedStep: SpanGroup = G.step;
export const viaHandle: number = managedSpan(G.layer, 'layer', () => 1);
// @ts-expect-error 'stpe' is not a group this namespace registered
export const typo: SpanGroup = G.stpe;
// The fallbacks return closed handles of the same type.
export const closed: typeof G = fallbacks.SpanRegistry.register('typed', ['step', 'layer'] as const);
// @ts-expect-error the fallbacks' handles are typed from the names too
export const closedTypo: SpanGroup = fallbacks.SpanRegistry.register('typed', ['step'] as const).layer;

const STEP: SpanGroup = spanGroup('step');
export const sync: number = managedSpan(STEP, 'train_step', (span: Span | undefined) => (span ? 1 : 0));
export const async: Promise<string> = managedSpan('step', 'eval', { attributes: { 'batch.size': 8 } }, async () => 'done');
// @ts-expect-error the callback is required
managedSpan('step', 'no_callback');
// @ts-expect-error the callback's result is the call's result
export const wrong: string = managedSpan('step', 'typed', () => 1);

export const evaluate = traceFn('step', 'evaluate')(async (batch: number[]): Promise<number> => batch.length);
export const evaluated: Promise<number> = evaluate([1, 2]);
// @ts-expect-error traceFn keeps the parameter types
evaluate('not an array');

export class Trainer {
  @traceFn('step', 'optimizer_step')
  optimizerStep(rate: number): number {
    return rate * 2;
  }
}

export const unsubscribe: () => void = onWarning((warning: NemoLensWarning) => void warning.code);
export const config = new NemoLensConfig({ enabled: true, spanGroups: 'default' });
export const fromEnv = NemoLensConfig.fromEnv({ prefix: 'NEMO_LENS', env: {} });
export function setup(): TelemetryHandle {
  return setupTelemetry(config, { allowReinit: true });
}
export function isCoded(error: unknown): string | undefined {
  return error instanceof NemoLensError ? error.code : undefined;
}

export const dark: number = fallbacks.managedSpan('step', 'x', () => 1);
export const notEnabled: boolean = fallbacks.isSpanGroupEnabled('step');
export const reset: Promise<void> = resetTelemetry();
export const spans: number = setupTestTelemetry({ spanGroups: 'all' }).spans().length;
