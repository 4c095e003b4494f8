/**
 * Duplicate copies of the package in one realm. npm installs two copies when two dependants
 * ask for incompatible ranges (or a bundler vendors one); both must then share one span-group
 * registry, one spec, one set of gates, one telemetry setup and one set of warning listeners,
 * through the realm state under `Symbol.for('nemo-lens.state.v<STATE_FORMAT>')`. A copy whose state format
 * differs keeps its own state and warns NEMO_LENS_INCOMPATIBLE_COPY instead of splitting
 * silently.
 *
 * The copies are built from the current sources and installed under two names in a temporary
 * node_modules (helpers/package-copies.ts); each scenario runs in a fresh child process.
 */
import test from 'ava';

import { STATE_FORMAT, VERSION } from '../src/version';
import { installCopies, removeProject, runScript } from './helpers/package-copies';

/** A state format this build does not share (the "next major" copy, and the planted state). */
const OTHER_FORMAT = STATE_FORMAT + 1;

let root: string;

test.before(() => {
  root = installCopies([{ name: 'nemo-lens' }, { name: 'nemo-lens-copy' }, { name: 'nemo-lens-next', version: '2.0.0', stateFormat: OTHER_FORMAT }]);
});

test.after.always(() => {
  if (root !== undefined) removeProject(root);
});

const PRELUDE = `
'use strict';
const warnings = [];
process.on('warning', (w) => warnings.push({ name: w.name, code: w.code, message: w.message }));
const settle = () => new Promise((resolve) => setImmediate(resolve));
`;

interface SharedResult {
  distinct: boolean;
  backends: string[];
  namespacesFromB: string[];
  groupsFromA: string[];
  heardByA: string[];
  gates: boolean[];
  sameHandle: boolean;
  handleFollows: boolean;
  secondSetup: string | null;
  spans: Array<[string, string | null]>;
  esmNamespaces: string[];
  esmIsA: boolean;
  errorCodeFromB: string;
  warnings: Array<{ name: string; code: string }>;
}

test('two copies under two names share one registry, spec, gates, setup and listeners', (t) => {
  const result = runScript<SharedResult>(
    root,
    'shared.cjs',
    `${PRELUDE}
(async () => {
  const a = require('nemo-lens');
  const b = require('nemo-lens-copy');
  const out = {};
  out.distinct = a !== b && a.SpanRegistry !== b.SpanRegistry && require.resolve('nemo-lens') !== require.resolve('nemo-lens-copy');
  out.backends = [a.backend, b.backend];
  a.SpanRegistry.register('mega', ['step', 'layer'], { default: ['step'] });
  out.namespacesFromB = b.SpanRegistry.namespaces();
  b.SpanRegistry.register('rl', ['rollout']);
  out.groupsFromA = [...a.SpanRegistry.groups()];
  const heard = [];
  a.onWarning((w) => heard.push(w.code));
  const handleFromA = a.spanGroup('rollout');
  b.setSpanGroupSpec('default,typo');
  out.heardByA = heard;
  out.gates = [a.isSpanGroupEnabled('step'), b.isSpanGroupEnabled('step'), a.isSpanGroupEnabled('rollout')];
  out.sameHandle = a.spanGroup('step') === b.spanGroup('step');
  b.setSpanGroupSpec('rollout');
  out.handleFollows = handleFromA.enabled === true;
  try {
    b.SpanRegistry.unregister('nope');
  } catch (error) {
    out.errorCodeFromB = error.code;
  }

  // (InMemorySpanExporter forgets its spans at shutdown; this one keeps them.)
  const spans = [];
  const exporter = { export(batch, done) { spans.push(...batch); done({ code: 0 }); }, shutdown: async () => {}, forceFlush: async () => {} };
  const handle = b.setupTelemetry({ enabled: true, spanGroups: 'all' }, { spanExporter: exporter });
  try {
    a.setupTelemetry({ enabled: true, spanGroups: 'all' }, { spanExporter: exporter });
    out.secondSetup = null;
  } catch (error) {
    out.secondSetup = error.code;
  }
  a.managedSpan('step', 'from-a', () => b.managedSpan('rollout', 'from-b', () => 1));
  await handle.shutdown(2000);
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s.name]));
  out.spans = spans.map((s) => [s.name, byId.get(s.parentSpanContext && s.parentSpanContext.spanId) || null]);

  const esm = await import('nemo-lens');
  out.esmNamespaces = esm.SpanRegistry.namespaces();
  out.esmIsA = esm.SpanRegistry === a.SpanRegistry;
  await settle();
  out.warnings = warnings.map(({ name, code }) => ({ name, code }));
  console.log(JSON.stringify(out));
})();
`,
  );
  t.true(result.distinct, 'two module instances from two directories');
  const expectedBackend = process.env['NEMO_LENS_BACKEND'] === 'js' ? 'js' : 'native';
  t.deepEqual(result.backends, [expectedBackend, expectedBackend]);
  t.deepEqual(result.namespacesFromB, ['mega']);
  t.deepEqual(result.groupsFromA, ['step', 'layer', 'rollout']);
  // NO_RANK: the setup names no rank (see resource.ts); it is heard across copies too.
  t.deepEqual(result.heardByA, ['NEMO_LENS_SPEC_PENDING', 'NEMO_LENS_NO_RANK'], 'a listener added through one copy hears the other');
  t.deepEqual(result.gates, [true, true, false]);
  t.true(result.sameHandle, 'one gate handle per name for the realm');
  t.true(result.handleFollows);
  t.is(result.errorCodeFromB, 'ERR_NEMO_LENS_NAMESPACE_NOT_REGISTERED');
  t.is(result.secondSetup, 'ERR_NEMO_LENS_ALREADY_INITIALIZED', 'one telemetry setup for the realm');
  t.deepEqual(result.spans, [
    ['from-b', 'from-a'],
    ['from-a', null],
  ]);
  t.deepEqual(result.esmNamespaces, ['mega', 'rl'], 'an ESM import of a copy is that copy');
  t.true(result.esmIsA);
  t.deepEqual(
    result.warnings.filter((w) => w.code === 'NEMO_LENS_INCOMPATIBLE_COPY'),
    [],
  );
  t.true(result.warnings.every((w) => w.name === 'NemoLensWarning'));
});

interface IncompatibleResult {
  warnings: Array<{ name: string; code: string; message: string }>;
  ownRegistry: { first: string[]; second: string[] };
  plantedUntouched?: boolean;
  works: boolean;
}

const INCOMPATIBLE = (first: string, second: string) => `${PRELUDE}
(async () => {
  const first = require('${first}');
  first.SpanRegistry.register('first', ['a']);
  const second = require('${second}');
  second.SpanRegistry.register('second', ['b']);
  second.setSpanGroupSpec('b');
  await settle();
  console.log(JSON.stringify({
    warnings,
    ownRegistry: { first: first.SpanRegistry.namespaces(), second: second.SpanRegistry.namespaces() },
    works: second.isSpanGroupEnabled('b') && !first.isSpanGroupEnabled('b'),
  }));
})();
`;

for (const [first, second] of [
  ['nemo-lens', 'nemo-lens-next'],
  ['nemo-lens-next', 'nemo-lens'],
]) {
  test(`an incompatible state format (${second} loaded after ${first}) warns once and keeps its own registry`, (t) => {
    const result = runScript<IncompatibleResult>(root, `incompatible-${second}.cjs`, INCOMPATIBLE(first!, second!));
    const incompatible = result.warnings.filter((w) => w.code === 'NEMO_LENS_INCOMPATIBLE_COPY');
    t.is(incompatible.length, 1, 'exactly one warning, from the copy loaded second');
    t.is(incompatible[0]?.name, 'NemoLensWarning');
    const otherVersion = first === 'nemo-lens' ? `${VERSION} (state format ${STATE_FORMAT})` : `2.0.0 (state format ${OTHER_FORMAT})`;
    t.true(incompatible[0]!.message.includes(otherVersion), incompatible[0]?.message);
    t.regex(incompatible[0]!.message, /npm dedupe/);
    t.deepEqual(result.ownRegistry, { first: ['first'], second: ['second'] });
    t.true(result.works);
  });
}

test('a planted Symbol.for("nemo-lens.state.v<other format>") state warns NEMO_LENS_INCOMPATIBLE_COPY and is left alone', (t) => {
  const result = runScript<IncompatibleResult>(
    root,
    'planted.cjs',
    `${PRELUDE}
(async () => {
  const planted = Object.freeze({ format: ${OTHER_FORMAT}, version: '9.9.9' });
  globalThis[Symbol.for('nemo-lens.state.v${OTHER_FORMAT}')] = planted;
  const a = require('nemo-lens');
  a.SpanRegistry.register('mega', ['step']);
  a.setSpanGroupSpec('step');
  await settle();
  console.log(JSON.stringify({
    warnings,
    ownRegistry: { first: a.SpanRegistry.namespaces(), second: [] },
    plantedUntouched: globalThis[Symbol.for('nemo-lens.state.v${OTHER_FORMAT}')] === planted && Object.keys(planted).length === 2,
    works: a.isSpanGroupEnabled('step'),
  }));
})();
`,
  );
  const incompatible = result.warnings.filter((w) => w.code === 'NEMO_LENS_INCOMPATIBLE_COPY');
  t.is(incompatible.length, 1);
  t.true(incompatible[0]!.message.includes(`9.9.9 (state format ${OTHER_FORMAT})`), incompatible[0]!.message);
  t.true(result.plantedUntouched);
  t.true(result.works);
  t.deepEqual(result.ownRegistry.first, ['mega']);
});
