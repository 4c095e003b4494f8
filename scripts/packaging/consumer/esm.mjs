// @ts-check
/**
 * An ESM consumer of the installed package: `node esm.mjs <native|js>`. The same checks as
 * cjs.cjs through `import`, and that the ESM entries are the CommonJS build: every name the
 * CommonJS entry exports is a named ESM export (as cjs-module-lexer finds them), and both
 * module systems reach the same objects, so one registry serves a process that mixes them.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { SPAN_GROUP_ATTRIBUTE, SpanRegistry, backend, enabledSpanGroups, isSpanGroupEnabled, managedSpan, nativeLoadError, spanGroup } from 'nemo-lens';
import * as fallbacks from 'nemo-lens/fallbacks';
import { resetTelemetry, setupTestTelemetry } from 'nemo-lens/testing';

const require = createRequire(import.meta.url);

const expected = process.argv[2];
assert.equal(backend, expected, 'backend');
if (expected === 'native') assert.equal(nativeLoadError, undefined, 'nativeLoadError on the native backend');
else assert.ok(nativeLoadError instanceof Error, 'nativeLoadError says why native did not load');

for (const entry of ['nemo-lens', 'nemo-lens/fallbacks', 'nemo-lens/testing']) {
  const esm = /** @type {Record<string, unknown>} */ (await import(entry));
  const cjs = /** @type {Record<string, unknown>} */ (require(entry));
  const missing = Object.keys(cjs).filter((name) => !(name in esm));
  assert.deepEqual(missing, [], `CommonJS exports of ${entry} missing from its ESM entry`);
  for (const name of Object.keys(cjs)) assert.equal(esm[name], cjs[name], `${entry}: ESM and CommonJS ${name} are one object`);
}

SpanRegistry.register('consumer', ['step', 'layer'], { default: ['step'] });
assert.deepEqual(require('nemo-lens').SpanRegistry.namespaces(), ['consumer'], 'a registration through ESM is visible through require');
const telemetry = setupTestTelemetry({ spanGroups: 'default' });
assert.deepEqual([...enabledSpanGroups()], ['step'], 'the "default" preset resolves to its group');
assert.equal(spanGroup('step').enabled, true, 'gate handle of an enabled group');
assert.equal(isSpanGroupEnabled('layer'), false, 'a group outside the spec');

const traced = await managedSpan('step', 'train_step', async (span) => {
  await new Promise((resolve) => setTimeout(resolve, 1));
  return span ? 'traced' : 'dark';
});
assert.equal(traced, 'traced', 'managedSpan passes a span on an enabled group');
assert.equal(managedSpan('layer', 'forward', (span) => span), undefined, 'and undefined on a disabled one');
await telemetry.handle.shutdown();

const spans = telemetry.spans();
assert.deepEqual(spans.map((span) => span.name), ['train_step'], 'exported spans');
assert.equal(spans[0]?.attributes[SPAN_GROUP_ATTRIBUTE], 'step');

assert.equal(fallbacks.managedSpan('step', 'train_step', (span) => span), undefined, 'fallbacks are closed gates');
await resetTelemetry();
console.log(`esm consumer: backend ${backend}, ESM exports = CommonJS exports, spec "default" enabled [step], 1 span exported`);
