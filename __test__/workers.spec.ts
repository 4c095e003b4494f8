/**
 * Worker threads and child processes.
 *
 * A worker thread is its own JavaScript realm: its own registry, spec and gates (like its own
 * OpenTelemetry globals), with the native addon loaded again for its Node-API environment.
 * Terminating a worker, even in the middle of a span or of a core call, must not take the
 * process down. A child process inherits the job-wide spec, which may name groups that only
 * another process registers: that is a warning, never an error.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';

import test from 'ava';

import { SpanRegistry, backend, isSpanGroupEnabled, setSpanGroupSpec } from '../src/index';
import { resetTelemetry } from '../src/testing';
import { startOtlpReceiver } from './helpers/otlp-receiver';
import type { RegistryReport, Scenario } from './helpers/worker-scenarios';

const REPO = path.join(__dirname, '..');
const run = promisify(execFile);

/** Exit codes, recorded from the start: a worker may exit before a test asks. */
const exits = new WeakMap<Worker, Promise<number>>();

function startScenarioWorker(scenario: Scenario, env: Record<string, string> = {}): Worker {
  const tsx = require.resolve('tsx/cjs/api');
  const entry = path.join(__dirname, 'helpers', 'worker-scenarios.ts');
  const worker = new Worker(`require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(entry)});`, {
    eval: true,
    workerData: scenario,
    env: { ...process.env, ...env },
    stdout: true,
    stderr: true,
  });
  exits.set(
    worker,
    once(worker, 'exit').then(([code]) => code as number),
  );
  return worker;
}

async function firstMessage<T>(worker: Worker): Promise<T> {
  const [message] = (await Promise.race([once(worker, 'message'), once(worker, 'error').then(([error]: Error[]) => Promise.reject(error as Error))])) as [T];
  const failure = (message as { error?: string } | undefined)?.error;
  if (failure !== undefined) throw new Error(`worker failed: ${failure}`);
  return message;
}

function exitCode(worker: Worker): Promise<number> {
  return exits.get(worker)!;
}

test.serial('each worker has its own registry, spec and gates; the native addon loads in each', async (t) => {
  await resetTelemetry();
  SpanRegistry.register('main', ['main_only']);
  setSpanGroupSpec('main_only');
  const scenarios: Array<Extract<Scenario, { kind: 'registry' }>> = [
    { kind: 'registry', namespace: 'shared', groups: ['step', 'layer'], spec: 'step' },
    { kind: 'registry', namespace: 'shared', groups: ['step', 'layer'], spec: 'layer,main_only' },
    { kind: 'registry', namespace: 'shared', groups: ['rollout'], spec: 'all' },
    { kind: 'registry', namespace: 'other', groups: ['STEP'], spec: 'step' },
  ];
  const workers = scenarios.map((scenario) => startScenarioWorker(scenario));
  const reports = await Promise.all(workers.map((worker) => firstMessage<RegistryReport>(worker)));
  t.deepEqual(await Promise.all(workers.map(exitCode)), [0, 0, 0, 0]);

  t.is(new Set(reports.map((r) => r.threadId)).size, 4);
  for (const [i, report] of reports.entries()) {
    t.is(report.backend, backend, `worker ${i} runs the same backend as the main thread`);
    t.is(report.nativeLoadError, null);
    t.deepEqual(report.namespacesAtStart, [], 'a worker starts with an empty registry');
    t.deepEqual(report.namespaces, [scenarios[i]!.namespace]);
    t.false(report.gates['main_only'], 'the main thread\'s groups are not the worker\'s');
  }
  t.deepEqual(reports[0]!.gates, { step: true, layer: false, rollout: false, main_only: false });
  t.deepEqual(reports[1]!.gates, { step: false, layer: true, rollout: false, main_only: false });
  t.deepEqual(reports[2]!.gates, { step: false, layer: false, rollout: true, main_only: false });
  t.deepEqual(reports[3]!.enabled, ['step']);

  // The main thread's state is untouched by any of them.
  t.deepEqual(SpanRegistry.namespaces(), ['main']);
  t.true(isSpanGroupEnabled('main_only'));
  t.false(isSpanGroupEnabled('step'));
});

test.serial('spans from worker threads export over OTLP, each with its own resource', async (t) => {
  const receiver = await startOtlpReceiver();
  try {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' };
    const workers = [0, 1].map(() => startScenarioWorker({ kind: 'export', spans: 50, spanGroups: 'step' }, env));
    const done = await Promise.all(workers.map((worker) => firstMessage<{ threadId: number }>(worker)));
    t.deepEqual(await Promise.all(workers.map(exitCode)), [0, 0]);
    const spans = receiver.spans();
    t.is(spans.length, 100, 'every span of both workers, and no disabled layer span');
    for (const { threadId } of done) {
      const own = spans.filter((span) => span.resource['test.thread_id'] === threadId);
      t.is(own.length, 50, `worker ${threadId}`);
      t.true(own.every((span) => span.name === `worker-${threadId}-step` && span.attributes['nemo.span_group'] === 'step'));
    }
  } finally {
    await receiver.close();
  }
});

for (const kind of ['stuck-sync', 'stuck-async', 'native-churn'] as const) {
  test.serial(`terminating a worker (${kind}) does not crash the process`, async (t) => {
    for (let round = 0; round < 3; round++) {
      const worker = startScenarioWorker({ kind });
      await firstMessage(worker);
      if (kind === 'native-churn') await new Promise((resolve) => setTimeout(resolve, 20 + round * 15));
      const exited = exitCode(worker);
      await worker.terminate();
      t.is(await exited, 1, 'terminated');
    }
    // The process, the main thread's core and a new worker all still work.
    await resetTelemetry();
    SpanRegistry.register('after', ['step']);
    setSpanGroupSpec('step');
    t.true(isSpanGroupEnabled('step'));
    const fresh = startScenarioWorker({ kind: 'registry', namespace: 'fresh', groups: ['layer'], spec: 'layer' });
    const report = await firstMessage<RegistryReport>(fresh);
    t.is(report.backend, backend);
    t.true(report.gates['layer']);
    t.is(await exitCode(fresh), 0);
  });
}

/** Run a CommonJS snippet in a child process with the sources (through tsx) and `env` added. */
async function child(code: string, env: Record<string, string>): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ['--import=tsx', '-e', code], { cwd: REPO, env: { ...process.env, ...env }, timeout: 30_000 });
}

const CLEAN_ENV = Object.fromEntries(
  Object.keys(process.env)
    .filter((key) => key.startsWith('NEMO_LENS_') && key !== 'NEMO_LENS_BACKEND')
    .map((key) => [key, '']),
);

test('a child process with an inherited spec naming another process\'s groups warns and runs', async (t) => {
  const code = `
    const lens = require('./src/index.ts');
    const warnings = [];
    lens.onWarning((w) => warnings.push(w));
    lens.SpanRegistry.register('trainer', ['step', 'layer'], { per_step: ['step'] });
    const handle = lens.setupTelemetry();
    const result = lens.managedSpan('step', 'child-step', () => 21 * 2);
    lens.managedSpan('layer', 'child-layer', () => undefined);
    handle.shutdown(2000).then(() => {
      process.stderr.write(JSON.stringify({ result, warnings, pending: [...lens.pendingSpanGroups()] }) + '\\n');
    });
  `;
  // The job-wide spec names the rollout workers' groups too; this process only has the trainer's.
  const { stdout, stderr } = await child(code, {
    ...CLEAN_ENV,
    NEMO_LENS_ENABLED: 'true',
    NEMO_LENS_EXPORTER: 'console',
    NEMO_LENS_SPAN_GROUPS: 'per_step,rollout,env_step',
  });
  const report = JSON.parse(stderr.trim().split('\n').pop()!) as { result: number; warnings: Array<{ code: string; message: string }>; pending: string[] };
  t.is(report.result, 42);
  t.deepEqual(report.pending, ['rollout', 'env_step']);
  t.deepEqual(
    report.warnings.map((w) => w.code),
    ['NEMO_LENS_SPEC_PENDING', 'NEMO_LENS_NO_RANK'], // the child names no rank: see resource.ts
  );
  t.regex(report.warnings[0]!.message, /"rollout", "env_step"/);
  const spans = stdout
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { name: string; group: string });
  t.deepEqual(
    spans.map((span) => [span.name, span.group]),
    [['child-step', 'step']],
  );
});

test('fromEnv with a per-process prefix and the fallback prefix, from one inherited environment', async (t) => {
  const env = {
    ...CLEAN_ENV,
    NEMO_LENS_ENABLED: 'yes',
    NEMO_LENS_SPAN_GROUPS: 'all',
    NEMO_LENS_EXPORTER: 'none',
    TRAINER_SPAN_GROUPS: 'per_step',
    TRAINER_RUN_ID: ' run-7 ',
    ROLLOUT_ENABLED: 'OFF',
    ROLLOUT_SPAN_GROUPS: '   ', // blank: read from the fallback
    ROLLOUT_EXPORTER: 'Console',
  };
  const code = (prefix: string) => `
    const { NemoLensConfig } = require('./src/index.ts');
    try {
      const c = NemoLensConfig.fromEnv({ prefix: '${prefix}', fallbackPrefix: 'NEMO_LENS' });
      console.log(JSON.stringify({ enabled: c.enabled, spanGroups: c.spanGroups, exporter: c.exporter, runId: c.runId ?? null }));
    } catch (error) {
      console.log(JSON.stringify({ code: error.code, message: error.message }));
    }
  `;
  const parse = ({ stdout }: { stdout: string }) => JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, unknown>;
  const [trainer, rollout, plain, broken] = await Promise.all([
    child(code('TRAINER'), env).then(parse),
    child(code('ROLLOUT'), env).then(parse),
    child(code('NEMO_LENS'), env).then(parse),
    child(code('TRAINER'), { ...env, TRAINER_TRACES_ENABLED: 'maybe', NEMO_LENS_TRACES_ENABLED: 'true' }).then(parse),
  ]);
  t.deepEqual(trainer, { enabled: true, spanGroups: 'per_step', exporter: 'none', runId: 'run-7' });
  t.deepEqual(rollout, { enabled: false, spanGroups: 'all', exporter: 'console', runId: null });
  t.deepEqual(plain, { enabled: true, spanGroups: 'all', exporter: 'none', runId: null });
  t.is(broken['code'], 'ERR_NEMO_LENS_INVALID_CONFIG');
  t.regex(String(broken['message']), /TRAINER_TRACES_ENABLED="maybe"/);
});
