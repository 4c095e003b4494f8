/**
 * Heap measurements shared by __test__/memory.spec.ts (small runs, bounded-growth
 * assertions) and scripts/soak-memory.ts (10^7 disabled calls, 10^6 enabled spans):
 *   - `disabledLoop`: disabled managedSpan / traceFn / gate calls, with the heap after a full
 *     GC before and after, and how many GCs ran during the loop (zero allocation, zero GCs);
 *   - `enabledSpans`: spans through an enabled setupTelemetry with its BatchSpanProcessor and
 *     a counting exporter, with the heap sampled as it goes and after shutdown.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';

import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

import { SpanRegistry, managedSpan, setSpanGroupSpec, setupTelemetry, spanGroup, traceFn, isSpanGroupEnabled } from '../../src/index';
import { resetTelemetry } from '../../src/testing';

/** A full, synchronous GC, with or without --expose-gc. */
export const fullGc: () => void = (() => {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed !== undefined) return exposed;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
})();

/** Heap in use after full GCs, in bytes. */
export function settledHeap(): number {
  for (let i = 0; i < 3; i++) fullGc();
  return process.memoryUsage().heapUsed;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Counts GC events (any kind) between start() and stop(). */
async function countGcs<T>(body: () => T): Promise<{ result: T; gcs: number }> {
  let gcs = 0;
  const observer = new PerformanceObserver((list) => {
    gcs += list.getEntries().length;
  });
  observer.observe({ entryTypes: ['gc'] });
  await tick();
  gcs = 0;
  const result = body();
  await tick();
  await tick();
  observer.disconnect();
  return { result, gcs };
}

export interface DisabledLoopResult {
  calls: number;
  heapBefore: number;
  heapAfter: number;
  gcsDuringLoop: number;
  seconds: number;
}

/**
 * `iterations` rounds of four disabled sites each (managedSpan with a name, with a handle and
 * options, a traceFn wrapper, and a gate test), after a warm-up that lets V8 optimise them.
 */
export async function disabledLoop(iterations: number): Promise<DisabledLoopResult> {
  await resetTelemetry();
  SpanRegistry.register('memory', ['on', 'off']);
  setSpanGroupSpec('on');
  const off = spanGroup('off');
  const options = { attributes: { never: 'built' } };
  const callback = (span: unknown) => (span === undefined ? 1 : 0);
  const traced = traceFn('off', 'traced')((x: number) => x & 1);
  const loop = (count: number): number => {
    let sum = 0;
    for (let i = 0; i < count; i++) {
      sum += managedSpan('off', 'disabled', callback);
      sum += managedSpan(off, 'disabled', options, callback);
      sum += traced(i);
      if (isSpanGroupEnabled(off)) sum = -1;
    }
    return sum;
  };
  loop(200_000); // warm-up: interpreter and baseline tiers allocate `arguments`; TurboFan does not
  const heapBefore = settledHeap();
  const started = performance.now();
  const { result, gcs } = await countGcs(() => loop(iterations));
  const seconds = (performance.now() - started) / 1000;
  if (result < iterations * 2) throw new Error(`disabled loop computed ${result}`);
  const heapAfter = settledHeap();
  await resetTelemetry();
  return { calls: iterations * 4, heapBefore, heapAfter, gcsDuringLoop: gcs, seconds };
}

/** Counts what it is given and keeps nothing. */
class CountingExporter implements SpanExporter {
  exported = 0;
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.exported += spans.length;
    done({ code: ExportResultCode.SUCCESS });
  }
  async shutdown(): Promise<void> {}
  async forceFlush(): Promise<void> {}
}

export interface EnabledSpansResult {
  spans: number;
  exported: number;
  /** Heap after full GCs before the run, then every tenth of the run, then after shutdown. */
  heapBaseline: number;
  heapSamples: number[];
  heapAfterShutdown: number;
  seconds: number;
}

async function runSpans(count: number, onTenth?: () => void): Promise<number> {
  const exporter = new CountingExporter();
  const handle = setupTelemetry({ enabled: true, spanGroups: 'step', exporter: 'otlp' }, { spanExporter: exporter, allowReinit: true });
  const tenth = Math.max(1, Math.floor(count / 10));
  for (let i = 0; i < count; i++) {
    managedSpan('step', 'train_step', (span) => {
      if (span) span.setAttribute('step', i);
      return managedSpan('layer', 'layer', () => i);
    });
    if (i % 500 === 499) await tick(); // let the batch processor export, as a real job's event loop would
    if (onTenth && i % tenth === tenth - 1) onTenth();
  }
  await handle.shutdown(10_000);
  return exporter.exported;
}

/** `count` enabled spans (each with a disabled child site) through the batch processor. */
export async function enabledSpans(count: number): Promise<EnabledSpansResult> {
  await resetTelemetry();
  SpanRegistry.register('memory', ['step', 'layer']);
  await runSpans(Math.min(count, 20_000)); // warm-up: SDK classes, ICs, lazily built state
  await resetTelemetry();
  SpanRegistry.register('memory', ['step', 'layer']);
  const heapBaseline = settledHeap();
  const heapSamples: number[] = [];
  const started = performance.now();
  const exported = await runSpans(count, () => heapSamples.push(settledHeap()));
  const seconds = (performance.now() - started) / 1000;
  await resetTelemetry();
  await tick();
  const heapAfterShutdown = settledHeap();
  return { spans: count, exported, heapBaseline, heapSamples, heapAfterShutdown, seconds };
}

export const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(2)} MB`;
