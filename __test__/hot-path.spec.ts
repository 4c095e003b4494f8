/**
 * The hot path never calls the core (native or twin): every gate read is answered from JS
 * state that resolution updated. Shown by counting calls on the realm's core instance.
 */
import test from 'ava';

import { SpanRegistry, isSpanGroupEnabled, managedSpan, setSpanGroupSpec, spanGroup, traceFn } from '../src/index';
import { shared } from '../src/global';
import { resetTelemetry } from '../src/testing';

function countCoreCalls(): { calls: string[]; restore: () => void } {
  const calls: string[] = [];
  const core = shared.core as unknown as Record<string, unknown>;
  const prototype = Object.getPrototypeOf(core) as Record<string, unknown>;
  const methods = Object.getOwnPropertyNames(prototype).filter((key) => key !== 'constructor' && typeof prototype[key] === 'function');
  for (const method of methods) {
    const original = prototype[method] as (...args: unknown[]) => unknown;
    core[method] = function (this: unknown, ...args: unknown[]) {
      calls.push(method);
      return original.apply(this, args);
    };
  }
  return {
    calls,
    restore: () => {
      for (const method of methods) delete core[method];
    },
  };
}

test.serial('gates, disabled managedSpan and traceFn make no core call', (t) => {
  void resetTelemetry();
  SpanRegistry.register('trainer', ['step', 'layer']);
  setSpanGroupSpec('step');
  const layer = spanGroup('layer');
  const tracedLayer = traceFn(layer, 'layer')((x: number) => x + 1);
  const counter = countCoreCalls();
  try {
    let sum = 0;
    for (let i = 0; i < 10_000; i++) {
      if (isSpanGroupEnabled('step')) sum++;
      if (isSpanGroupEnabled(layer)) sum--;
      if (spanGroup('step').enabled) sum++;
      sum += managedSpan('layer', 'layer', () => 1);
      sum += managedSpan(layer, 'layer', () => 1);
      sum += tracedLayer(0);
    }
    t.is(sum, 50_000);
    t.deepEqual(counter.calls, []);
    // The counter itself works: a registry change does call the core.
    SpanRegistry.register('rl', ['rollout']);
    t.true(counter.calls.includes('register'));
  } finally {
    counter.restore();
  }
});
