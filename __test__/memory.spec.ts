/**
 * Memory, in small runs (scripts/soak-memory.ts is the long one: 10^7 disabled calls, 10^6
 * enabled spans). Only bounded-growth assertions here, no timing: a disabled site allocates
 * nothing that survives, and spans through the batch processor are released after shutdown.
 */
import test from 'ava';

import { disabledLoop, enabledSpans, mb } from './helpers/memory';

test.serial('2 x 10^6 rounds of disabled sites (8 x 10^6 calls) allocate nothing and leave the heap where it was', async (t) => {
  const result = await disabledLoop(2_000_000);
  const growth = result.heapAfter - result.heapBefore;
  t.log(`${result.calls} disabled calls: heap ${mb(result.heapBefore)} -> ${mb(result.heapAfter)}, ${result.gcsDuringLoop} GCs during the loop`);
  t.true(growth < 512 * 1024, `heap grew ${mb(growth)}`);
  // No allocation on the disabled path: a young-generation GC needs only a few MB allocated.
  t.true(result.gcsDuringLoop <= 1, `${result.gcsDuringLoop} GCs during the loop`);
});

test.serial('50k enabled spans through the batch processor: bounded heap, released after shutdown', async (t) => {
  const result = await enabledSpans(50_000);
  t.log(
    `baseline ${mb(result.heapBaseline)}, peak ${mb(Math.max(...result.heapSamples))}, after shutdown ${mb(result.heapAfterShutdown)}, exported ${result.exported}`,
  );
  t.is(result.exported, result.spans, 'every span exported: the processor kept up, nothing dropped');
  const peak = Math.max(...result.heapSamples) - result.heapBaseline;
  t.true(peak < 16 * 2 ** 20, `peak growth ${mb(peak)}`);
  const retained = result.heapAfterShutdown - result.heapBaseline;
  t.true(retained < 2 * 2 ** 20, `retained after shutdown ${mb(retained)}`);
});
