// @ts-check
/**
 * A smoke test for other runtimes (Bun, Deno): `<runtime> runtime-smoke.mjs <native|js> [setup]`.
 * Import (named and default), register, resolve a spec, gate a site; with `setup`, an
 * in-memory telemetry setup exports the enabled site's span. Prints one line on success.
 */
import lens, { SpanRegistry, backend, enabledSpanGroups, managedSpan, setSpanGroupSpec, spanGroup } from 'nemo-lens';
import { resetTelemetry, setupTestTelemetry } from 'nemo-lens/testing';

const [expected, mode] = [globalThis.process.argv[2], globalThis.process.argv[3]];
/** @param {boolean} ok @param {string} what */
const check = (ok, what) => {
  if (!ok) throw new Error(`runtime smoke test: ${what}`);
};
check(backend === expected, `backend is ${backend}, expected ${expected} (nativeLoadError: ${lens.nativeLoadError?.message})`);
check(lens.spanGroup === spanGroup, 'the default export holds the named exports');
SpanRegistry.register('smoke', ['step', 'layer'], { default: ['step'] });
if (mode === 'setup') {
  const telemetry = setupTestTelemetry({ spanGroups: 'default' });
  managedSpan('step', 'train_step', (span) => span?.setAttribute('ok', true));
  managedSpan('layer', 'forward', () => undefined);
  await telemetry.handle.shutdown();
  const names = telemetry.spans().map((span) => span.name);
  check(names.length === 1 && names[0] === 'train_step', `exported spans: ${JSON.stringify(names)}`);
  await resetTelemetry();
} else {
  setSpanGroupSpec('default');
  check(spanGroup('step').enabled && !spanGroup('layer').enabled, 'the spec "default" enables step only');
  check([...enabledSpanGroups()].join() === 'step', 'enabledSpanGroups');
  check(managedSpan('layer', 'forward', (span) => span) === undefined, 'a disabled site gets no span');
}
console.log(`runtime smoke: backend ${backend}${mode === 'setup' ? ', setup exported 1 span' : ', spec resolved, sites gated'}`);
