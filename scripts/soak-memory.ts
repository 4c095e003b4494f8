/**
 * Memory soak of the JavaScript side (the long versions of __test__/memory.spec.ts):
 *   1. 10^7 rounds of disabled sites (managedSpan by name, by handle with options, a traceFn
 *      wrapper, a gate: 4 x 10^7 calls): heap before and after (full GCs), and the number
 *      of GCs during the loop (0 means the disabled path allocates nothing);
 *   2. 10^6 enabled spans through an enabled setupTelemetry (BatchSpanProcessor, counting
 *      exporter): heap every 10^5 spans, peak, and after shutdown.
 *
 *     npm run soak:memory                        # both, on the backend NEMO_LENS_BACKEND picks
 *     npm run soak:memory -- --disabled 1e8 --enabled 2e6
 *
 * Exit code 1 if the heap grows by more than 1 MB across the disabled calls, peaks more than
 * 64 MB above its baseline during the enabled spans, or keeps more than 4 MB after shutdown.
 */
import { parseArgs } from 'node:util';

import { backend } from '../src/index';
import { disabledLoop, enabledSpans, mb } from '../__test__/helpers/memory';

const { values } = parseArgs({
  options: {
    disabled: { type: 'string', default: '1e7' },
    enabled: { type: 'string', default: '1e6' },
  },
});
const disabledRounds = Number(values.disabled);
const enabledCount = Number(values.enabled);

async function main(): Promise<number> {
  let failures = 0;
  console.log(`soak-memory: backend ${backend}, node ${process.version}`);

  if (disabledRounds > 0) {
    const result = await disabledLoop(disabledRounds);
    const growth = result.heapAfter - result.heapBefore;
    console.log(
      `soak-memory: ${result.calls.toExponential(1)} disabled calls in ${result.seconds.toFixed(2)} s: heap ${mb(result.heapBefore)} -> ${mb(result.heapAfter)} ` +
        `(${growth >= 0 ? '+' : ''}${mb(growth)}), ${result.gcsDuringLoop} GCs during the loop`,
    );
    if (growth > 2 ** 20) {
      console.error('soak-memory: FAIL: the heap grew across disabled calls');
      failures++;
    }
  }

  if (enabledCount > 0) {
    const result = await enabledSpans(enabledCount);
    const peak = Math.max(...result.heapSamples);
    console.log(
      `soak-memory: ${result.spans.toExponential(1)} enabled spans (batch processor) in ${result.seconds.toFixed(1)} s, ${result.exported} exported: ` +
        `heap baseline ${mb(result.heapBaseline)}, peak ${mb(peak)} (+${mb(peak - result.heapBaseline)}), after shutdown ${mb(result.heapAfterShutdown)} ` +
        `(${result.heapAfterShutdown >= result.heapBaseline ? '+' : ''}${mb(result.heapAfterShutdown - result.heapBaseline)})`,
    );
    console.log(`soak-memory: heap every tenth: ${result.heapSamples.map(mb).join(', ')}`);
    if (peak - result.heapBaseline > 64 * 2 ** 20) {
      console.error('soak-memory: FAIL: the heap was not bounded while spans flowed');
      failures++;
    }
    if (result.heapAfterShutdown - result.heapBaseline > 4 * 2 ** 20) {
      console.error('soak-memory: FAIL: the heap was not released after shutdown');
      failures++;
    }
  }
  return failures;
}

main().then(
  (failures) => process.exit(failures === 0 ? 0 : 1),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
