// @ts-check
/**
 * The shared conformance vectors (recorded from the Python reference) run through the
 * installed package: `node conformance.mjs <vectors dir>`. The runner logic of
 * __test__/conformance.spec.ts, restated against the public entry points only; every step of
 * every vector must pass, whichever core the package picked.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  SpanRegistry,
  backend,
  enabledSpanGroups,
  isSpanGroupEnabled,
  onWarning,
  pendingSpanGroups,
  setEnabledSpanGroups,
  setSpanGroupSpec,
  setupTelemetry,
} from 'nemo-lens';
import { resetTelemetry } from 'nemo-lens/testing';

/**
 * @typedef {{ error: string | null, warnings: Array<{ code: string, mentions: string[] }>, state: unknown,
 *   resolved?: unknown, isEnabled?: Record<string, boolean> }} Expected
 * @typedef {{ op: 'register', namespace: string, groups: string[], presets?: Record<string, string[]>, allowOverride?: boolean, expect: Expected }
 *   | { op: 'unregister', namespace: string, expect: Expected }
 *   | { op: 'clear', expect: Expected }
 *   | { op: 'setSpec' | 'setup' | 'resolve', spec: string, expect: Expected }
 *   | { op: 'pin', groups: string[], expect: Expected }
 *   | { op: 'isEnabled', names: string[], expect: Expected }} Step
 * @typedef {{ name: string, steps: Step[] }} Vector
 * @typedef {{ error: string | null, resolved?: unknown, isEnabled?: Record<string, boolean> }} Outcome
 */

const SPAN_GROUP_CODES = new Set([
  'NEMO_LENS_GROUP_SHARED',
  'NEMO_LENS_PRESET_MEMBER_UNREGISTERED',
  'NEMO_LENS_LATE_REGISTRATION',
  'NEMO_LENS_NO_GROUPS_REGISTERED',
  'NEMO_LENS_SPEC_PENDING',
  'NEMO_LENS_SPEC_RESOLVED_EMPTY',
]);

/** @type {Array<{ code: string, message: string }>} */
const warnings = [];
onWarning((warning) => {
  if (SPAN_GROUP_CODES.has(warning.code)) warnings.push(warning);
});

/** An exporter that drops spans: the `setup` op needs an enabled setup, not its output. */
const dropSpans = {
  /** @type {(spans: unknown[], done: (result: { code: 0 }) => void) => void} */
  export: (_spans, done) => done({ code: 0 }),
  shutdown: async () => {},
};

/** @param {Iterable<string>} values */
const sorted = (values) => [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** @param {Step} step @returns {Outcome} */
function run(step) {
  try {
    switch (step.op) {
      case 'register':
        SpanRegistry.register(step.namespace, step.groups, step.presets, { allowOverride: step.allowOverride ?? false });
        return { error: null };
      case 'unregister':
        SpanRegistry.unregister(step.namespace);
        return { error: null };
      case 'clear':
        SpanRegistry.clear();
        return { error: null };
      case 'setSpec':
        setSpanGroupSpec(step.spec);
        return { error: null };
      case 'setup':
        setupTelemetry({ enabled: true, spanGroups: step.spec }, { spanExporter: dropSpans, allowReinit: true });
        return { error: null };
      case 'pin':
        setEnabledSpanGroups(step.groups);
        return { error: null };
      case 'resolve': {
        const { enabled, pending } = SpanRegistry.resolve(step.spec);
        return { error: null, resolved: { enabled: sorted(enabled), pending: sorted(pending) } };
      }
      case 'isEnabled':
        return { error: null, isEnabled: Object.fromEntries(step.names.map((name) => [name, isSpanGroupEnabled(name)])) };
    }
  } catch (error) {
    return { error: /** @type {{ code?: string }} */ (error).code ?? `uncoded: ${String(error)}` };
  }
}

function snapshot() {
  const presets = SpanRegistry.presets();
  return {
    groups: sorted(SpanRegistry.groups()),
    namespaces: SpanRegistry.namespaces(),
    presets: Object.fromEntries(sorted(presets.keys()).map((name) => [name, sorted(presets.get(name) ?? [])])),
    enabled: sorted(enabledSpanGroups()),
    pending: sorted(pendingSpanGroups()),
  };
}

/** @param {Vector} vector @param {string} where */
async function runVector(vector, where) {
  await resetTelemetry();
  for (const [index, step] of vector.steps.entries()) {
    warnings.length = 0;
    const outcome = run(step);
    const label = `${where} / ${vector.name} / step ${index} (${step.op})`;
    const expect = step.expect;
    assert.equal(outcome.error, expect.error, `${label}: error`);
    assert.deepEqual(warnings.map((w) => w.code), expect.warnings.map((w) => w.code), `${label}: warning codes`);
    expect.warnings.forEach((w, i) => {
      const message = warnings[i]?.message ?? '';
      assert.deepEqual(w.mentions.filter((mention) => !message.includes(mention)), [], `${label}: warning ${i} mentions (message: ${message})`);
    });
    if (expect.resolved) assert.deepEqual(outcome.resolved, expect.resolved, `${label}: resolved`);
    if (expect.isEnabled) assert.deepEqual(outcome.isEnabled, expect.isEnabled, `${label}: isEnabled`);
    assert.deepEqual(snapshot(), expect.state, `${label}: state`);
  }
  return vector.steps.length;
}

const dir = process.argv[2];
if (!dir) throw new Error('usage: node conformance.mjs <directory of the conformance vectors>');
let vectors = 0;
let steps = 0;
for (const file of ['registry.json', 'registry-random.json', 'registry-extra.json']) {
  const parsed = /** @type {{ format: number | string, vectors: Vector[] }} */ (JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')));
  // registry-extra.json spells format 1 out as text; the vectors are the same shape.
  assert.ok(parsed.format === 1 || parsed.format === 'nemo-lens conformance vectors v1', `${file}: conformance format ${parsed.format}`);
  for (const vector of parsed.vectors) {
    steps += await runVector(vector, file);
    vectors += 1;
  }
}
await resetTelemetry();
console.log(`conformance: ${vectors} vectors, ${steps} steps passed on backend ${backend}`);
