/**
 * A real backend: the demo (examples/demo, as `npm run demo` runs it: a parent and three job
 * processes) exports to Jaeger v2 over each OTLP protocol, and everything is checked through
 * Jaeger's own query API: the span count per group and run, the parent/child tree across the
 * four processes, status (a failing job too) and resource attributes. The Jaeger binary comes
 * from scripts/jaeger/build.sh (cached); without it this spec fails and says how to get it.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { promisify } from 'node:util';

import test from 'ava';

import { requireGrpcExporterModules, startJaeger, type Jaeger } from './helpers/jaeger';
import type { DecodedSpan } from './helpers/protobuf';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..');
const DEMO = path.join(ROOT, 'examples', 'demo', 'main.ts');
const FAILING_JOB = path.join(__dirname, 'helpers', 'jaeger-failing-job.ts');
const GROUP_ATTRIBUTE = 'nemo.span_group';

const PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
type Protocol = (typeof PROTOCOLS)[number];

// The demo's plan (examples/demo/job.ts): 2 epochs of 4 steps, 2 micro-batches a step, 4 reward
// samples a rollout. Each spec enables the groups of its presets (trainer.ts, rl.ts).
const GROUP_COUNTS: Record<string, Record<string, number>> = {
  default: { job: 1, epoch: 2, checkpoint: 2, policy_update: 8 },
  per_step: { job: 1, epoch: 2, step: 8, optimizer: 8, checkpoint: 2, rollout: 8, policy_update: 8 },
  all: { job: 1, epoch: 2, step: 8, forward_backward: 16, optimizer: 8, checkpoint: 2, rollout: 8, reward: 32, policy_update: 8 },
};

// "child < parent" edges, counted: a span whose group is off is skipped, so its children hang
// from the nearest enabled ancestor (policy_update under epoch when steps are off).
const EDGES: Record<string, Record<string, number>> = {
  default: { 'train < demo run default': 1, 'epoch < train': 2, 'checkpoint.save < epoch': 2, 'policy_update < epoch': 8 },
  per_step: {
    'train < demo run per_step': 1,
    'epoch < train': 2,
    'checkpoint.save < epoch': 2,
    'train_step < epoch': 8,
    'rollout < train_step': 8,
    'optimizer.step < train_step': 8,
    'policy_update < train_step': 8,
  },
  all: {
    'train < demo run all': 1,
    'epoch < train': 2,
    'checkpoint.save < epoch': 2,
    'train_step < epoch': 8,
    'rollout < train_step': 8,
    'reward < rollout': 32,
    'forward_backward < train_step': 16,
    'optimizer.step < train_step': 8,
    'policy_update < train_step': 8,
  },
};
const SPECS = Object.keys(GROUP_COUNTS);
// The demo's parent exports its root span and one span per run, besides the jobs' spans.
const DEMO_SPANS = 1 + SPECS.length + SPECS.reduce((sum, spec) => sum + Object.values(GROUP_COUNTS[spec]!).reduce((a, b) => a + b, 0), 0);

let jaeger: Jaeger | undefined;

test.before(async () => {
  jaeger = await startJaeger();
});

test.after.always(async () => {
  await jaeger?.stop();
});

/** The child's environment: this one without its OTEL_ and NEMO_LENS_ settings (NEMO_LENS_BACKEND stays: both backends run). */
function childEnv(protocol: Protocol, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => key === 'NEMO_LENS_BACKEND' || !/^(OTEL_|NEMO_LENS_|NODE_PATH$)/.test(key)),
  );
  const endpoint = protocol === 'grpc' ? jaeger!.otlpGrpcUrl : jaeger!.otlpHttpUrl;
  // The gRPC exporter is installed apart from the project (scripts/jaeger/grpc): only this run sees it.
  const grpc = protocol === 'grpc' ? { NODE_PATH: requireGrpcExporterModules() } : {};
  return { ...env, ...grpc, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: protocol, ...extra };
}

const EXPORT_TROUBLE = /NEMO_LENS_(EXPORTER_FALLBACK|EXPORT_FAILED|SPANS_DROPPED|SHUTDOWN_TIMEOUT)/;

const baseName = (name: string) => (name.startsWith('epoch ') ? 'epoch' : name);

function countBy<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

for (const protocol of PROTOCOLS) {
  test.serial(`the demo over ${protocol}: Jaeger holds every span, per group and run, in one tree`, async (t) => {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', DEMO], {
      cwd: ROOT,
      env: childEnv(protocol, { NEMO_LENS_DEMO_EXPORTER: 'otlp', NEMO_LENS_IN_PROGRESS_AFTER_MS: '500' }),
      timeout: 90_000,
    });
    t.notRegex(stderr, EXPORT_TROUBLE);
    const traceId = /look for trace ([0-9a-f]{32})/.exec(stdout)?.[1];
    if (!traceId) return t.fail(`the demo printed no trace id:\n${stdout}\n${stderr}`);

    // A span open longer than NEMO_LENS_IN_PROGRESS_AFTER_MS (the demo's root, on a slow machine)
    // also arrives as in-progress snapshots: each names the final span it stands for.
    const snapshot = (span: DecodedSpan) => span.attributes['nemo.span.in_progress'] === true;
    const received = await jaeger!.waitForTrace(traceId, DEMO_SPANS, undefined, (span) => !snapshot(span));
    const spans = received.filter((span) => !snapshot(span));
    t.is(spans.length, DEMO_SPANS, `Jaeger holds ${spans.length} of the demo's ${DEMO_SPANS} final spans`);
    for (const shot of received.filter(snapshot)) {
      const real = spans.find((span) => span.spanId === shot.attributes['nemo.span.in_progress.span_id']);
      t.is(shot.name, `${real?.name ?? '?'} (in progress)`, 'a snapshot stands for a final span of the trace');
      t.is(shot.parentSpanId, real?.parentSpanId ?? '?', 'a snapshot hangs where its span does');
    }
    // The demo's root stays open for seconds (three child jobs run under it): snapshots of it must arrive.
    t.true(received.some((span) => snapshot(span) && span.name === 'demo (in progress)'), 'an in-progress snapshot of the open root');
    t.true(spans.every((span) => span.traceId === traceId));

    // One tree: one root, every other span's parent is in the trace, ids unique.
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    t.is(byId.size, spans.length);
    t.deepEqual(spans.filter((span) => span.parentSpanId === '').map((span) => span.name), ['demo']);
    t.deepEqual(spans.filter((span) => span.parentSpanId !== '' && !byId.has(span.parentSpanId)).map((span) => span.name), []);
    const edge = (span: DecodedSpan) => `${baseName(span.name)} < ${baseName(byId.get(span.parentSpanId)?.name ?? '')}`;

    // Each job exports under its run id (NEMO_LENS_RUN_ID=demo-<spec>); the demo's parent under its own.
    const runOf = (span: DecodedSpan) => SPECS.find((spec) => span.resource['nemo.run.id'] === `demo-${spec}`);
    const parentSpans = spans.filter((span) => runOf(span) === undefined);
    t.deepEqual(countBy(parentSpans.filter((span) => span.name !== 'demo'), edge), Object.fromEntries(SPECS.map((spec) => [`demo run ${spec} < demo`, 1])));

    for (const spec of SPECS) {
      const runSpans = spans.filter((span) => runOf(span) === spec);
      t.deepEqual(countBy(runSpans, (span) => String(span.attributes[GROUP_ATTRIBUTE])), GROUP_COUNTS[spec], `groups of the ${spec} run`);
      t.deepEqual(countBy(runSpans, edge), EDGES[spec], `tree of the ${spec} run`);
      // Resource attributes: the job's identity, as setupTelemetry set it from the environment.
      const resources = new Set(runSpans.map((span) => JSON.stringify(span.resource)));
      t.is(resources.size, 1, `one resource for the ${spec} run`);
      const resource = runSpans[0]!.resource;
      t.like(resource, {
        'service.name': 'nemo-lens-demo',
        'nemo.run.id': `demo-${spec}`,
        'service.instance.id': `demo-${spec}-rank0`,
        'dl.rank': 0,
        'dl.world_size': 1,
        'telemetry.sdk.language': 'nodejs',
      });
    }
    // Four processes exported, each under its own run id: the demo's parent and one job per spec.
    t.is(new Set(spans.map((span) => span.resource['nemo.run.id'])).size, 1 + SPECS.length);
    t.true(parentSpans.every((span) => span.resource['service.name'] === 'nemo-lens-demo'));

    // Nothing failed in the demo: every status is unset, and no span recorded an exception.
    t.deepEqual(countBy(spans, (span) => `${span.status.code}:${span.status.message}`), { '0:': DEMO_SPANS });
    t.true(spans.every((span) => span.events.every((event) => event.name !== 'exception')));
    t.true(spans.every((span) => span.endTimeUnixNano >= span.startTimeUnixNano && span.startTimeUnixNano > 0n));
  });

  test.serial(`a failing step over ${protocol}: Jaeger shows its error status, message and exception`, async (t) => {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const { stderr } = await run(process.execPath, ['--import', 'tsx', FAILING_JOB], {
      cwd: ROOT,
      env: childEnv(protocol, {
        NEMO_LENS_ENABLED: 'true',
        NEMO_LENS_SPAN_GROUPS: 'all',
        NEMO_LENS_EXPORTER: 'otlp',
        OTEL_SERVICE_NAME: 'nemo-lens-failing-job',
        TRACEPARENT: `00-${traceId}-${parentId}-01`,
      }),
      timeout: 60_000,
    });
    t.notRegex(stderr, EXPORT_TROUBLE);
    const spans = await jaeger!.waitForTrace(traceId, 3);
    const byName = new Map(spans.map((span) => [span.name, span]));
    t.deepEqual([...byName.keys()].sort(), ['bad step', 'failing job', 'good step']);
    const bad = byName.get('bad step')!;
    t.deepEqual(bad.status, { code: 2, message: 'the loss went NaN at step 3' });
    t.like(bad.events.find((event) => event.name === 'exception')?.attributes ?? {}, {
      'exception.type': 'Error',
      'exception.message': 'the loss went NaN at step 3',
    });
    t.is(byName.get('good step')!.status.code, 0);
    // The job caught its step's failure: the job itself did not fail.
    t.is(byName.get('failing job')!.status.code, 0);
    t.is(byName.get('failing job')!.parentSpanId, parentId);
    t.is(bad.parentSpanId, byName.get('failing job')!.spanId);
    t.is(bad.resource['service.name'], 'nemo-lens-failing-job');
  });
}
