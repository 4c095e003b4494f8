import test from 'ava';

import {
  SpanRegistry,
  backend,
  enabledSpanGroups,
  isSpanGroupEnabled,
  onWarning,
  pendingSpanGroups,
  setEnabledSpanGroups,
  setSpanGroupSpec,
  type NemoLensWarning,
} from '../src/index';
import { resetTelemetry } from '../src/testing';
import { loadVectors, sorted, type Step, type Vector, type VectorFile } from './helpers/conformance';
import { enabledSetup } from './helpers/setup';

const SPAN_GROUP_CODES = new Set([
  'NEMO_LENS_GROUP_SHARED',
  'NEMO_LENS_PRESET_MEMBER_UNREGISTERED',
  'NEMO_LENS_LATE_REGISTRATION',
  'NEMO_LENS_NO_GROUPS_REGISTERED',
  'NEMO_LENS_SPEC_PENDING',
  'NEMO_LENS_SPEC_RESOLVED_EMPTY',
]);

const warnings: NemoLensWarning[] = [];
onWarning((warning) => {
  if (SPAN_GROUP_CODES.has(warning.code)) warnings.push(warning);
});

async function run(step: Step): Promise<{ error: string | null; resolved?: unknown; isEnabled?: Record<string, boolean> }> {
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
        await enabledSetup(step.spec);
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
    return { error: (error as { code?: string }).code ?? `uncoded: ${String(error)}` };
  }
}

function snapshot() {
  return {
    groups: sorted(SpanRegistry.groups()),
    namespaces: SpanRegistry.namespaces(),
    presets: Object.fromEntries(sorted(SpanRegistry.presets().keys()).map((name) => [name, sorted(SpanRegistry.presets().get(name)!)])),
    enabled: sorted(enabledSpanGroups()),
    pending: sorted(pendingSpanGroups()),
  };
}

function defineVectors(file: VectorFile): void {
  for (const vector of loadVectors(file)) {
    test.serial(`${backend}: ${file} / ${vector.name}`, async (t) => {
      await runVector(vector, (label, actual, expected) => t.deepEqual(actual, expected, label));
      t.pass();
    });
  }
}

type Check = (label: string, actual: unknown, expected: unknown) => void;

async function runVector(vector: Vector, check: Check): Promise<void> {
  void resetTelemetry();
  for (const [index, step] of vector.steps.entries()) {
    warnings.length = 0;
    const outcome = await run(step);
    const label = `step ${index} (${step.op})`;
    const expect = step.expect;
    check(`${label}: error`, outcome.error, expect.error);
    check(
      `${label}: warning codes`,
      warnings.map((w) => w.code),
      expect.warnings.map((w) => w.code),
    );
    expect.warnings.forEach((w, i) => {
      const message = warnings[i]?.message ?? '';
      const missing = w.mentions.filter((mention) => !message.includes(mention));
      check(`${label}: warning ${i} mentions (message: ${message})`, missing, []);
    });
    if (expect.resolved) check(`${label}: resolved`, outcome.resolved, expect.resolved);
    if (expect.isEnabled) check(`${label}: isEnabled`, outcome.isEnabled, expect.isEnabled);
    check(`${label}: state`, snapshot(), expect.state);
  }
}

defineVectors('registry.json');
defineVectors('registry-random.json');
// Specs of only commas and blanks, and the order of register's checks (issue 13, items 7 and 8).
defineVectors('registry-extra.json');

test.serial(`${backend}: every conformance step runs`, async (t) => {
  let steps = 0;
  for (const file of ['registry.json', 'registry-random.json', 'registry-extra.json'] as const) {
    for (const vector of loadVectors(file)) {
      let failed = false;
      await runVector(vector, (_label, actual, expected) => {
        if (JSON.stringify(actual) !== JSON.stringify(expected)) failed = true;
      });
      if (!failed) steps += vector.steps.length;
    }
  }
  t.is(steps, 1861 + 18);
});
