// @ts-check
/**
 * A CommonJS consumer of the installed package: `node cjs.cjs <native|js>`.
 * The backend is the expected one, a span group resolves from a spec, managedSpan emits on an
 * enabled group and calls fn(undefined) on a disabled one, and the fallbacks entry loads.
 */
'use strict';
const assert = require('node:assert/strict');
const lens = require('nemo-lens');
const fallbacks = require('nemo-lens/fallbacks');
const { resetTelemetry, setupTestTelemetry } = require('nemo-lens/testing');

async function main() {
  const expected = process.argv[2];
  assert.equal(lens.backend, expected, 'backend');
  if (expected === 'native') assert.equal(lens.nativeLoadError, undefined, 'nativeLoadError on the native backend');
  else assert.ok(lens.nativeLoadError instanceof Error, 'nativeLoadError says why native did not load');

  lens.SpanRegistry.register('consumer', ['step', 'layer'], { default: ['step'] });
  const telemetry = setupTestTelemetry({ spanGroups: 'default' });
  assert.deepEqual([...lens.enabledSpanGroups()], ['step'], 'the "default" preset resolves to its group');
  assert.equal(lens.spanGroup('step').enabled, true, 'gate handle of an enabled group');
  assert.equal(lens.isSpanGroupEnabled('layer'), false, 'a group outside the spec');

  const traced = lens.managedSpan('step', 'train_step', (span) => {
    span?.setAttribute('batch.size', 8);
    return span ? 'traced' : 'dark';
  });
  assert.equal(traced, 'traced', 'managedSpan passes a span on an enabled group');
  assert.equal(lens.managedSpan('layer', 'forward', (span) => span), undefined, 'and undefined on a disabled one');
  await telemetry.handle.shutdown();

  const spans = telemetry.spans();
  assert.deepEqual(spans.map((span) => span.name), ['train_step'], 'exported spans');
  assert.equal(spans[0]?.attributes['batch.size'], 8);
  assert.equal(spans[0]?.attributes[lens.SPAN_GROUP_ATTRIBUTE], 'step');

  assert.equal(fallbacks.managedSpan('step', 'train_step', (span) => span), undefined, 'fallbacks are closed gates');
  await resetTelemetry();
  console.log(`cjs consumer: backend ${lens.backend}, spec "default" enabled [step], 1 span exported`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
