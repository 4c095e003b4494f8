/**
 * `npm run demo`: one training job (a trainer library and an RL library, each registering
 * its own span groups) run three times as child processes, under
 * NEMO_LENS_SPAN_GROUPS=default, per_step and all. The children export to the console (one
 * JSON line per span on their stdout); this parent reads those lines and prints how many
 * spans each group emitted per run, a couple of sample lines, and a check that every span
 * continued the demo's own trace (passed to each child in TRACEPARENT).
 *
 * Send the spans to a collector instead (nothing is counted then; look in your backend):
 *     NEMO_LENS_DEMO_EXPORTER=otlp OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 npm run demo
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';

import { SpanRegistry, backend, envWithTraceContext, setupTelemetry, spanCm } from '../../src/index';
import type { ConsoleSpanRecord } from '../../src/telemetry/console-exporter';
import { RL_GROUPS } from './rl';
import { TRAINER_GROUPS } from './trainer';

const SPECS = ['default', 'per_step', 'all'] as const;
const EXPORTER = process.env['NEMO_LENS_DEMO_EXPORTER']?.trim() || 'console';
const JOB = path.join(__dirname, 'job.ts');

interface Run {
  readonly spec: string;
  readonly parentSpanId: string;
  readonly records: ConsoleSpanRecord[];
  readonly ms: number;
}

/** Run job.ts with `env`; resolve with the span records of its stdout. Other stdout lines pass through. */
function runJob(env: NodeJS.ProcessEnv): Promise<ConsoleSpanRecord[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', JOB], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const records: ConsoleSpanRecord[] = [];
    let pending = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('{"name"')) records.push(JSON.parse(line) as ConsoleSpanRecord);
        else if (line.trim() !== '') console.log(`  | ${line}`);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(records) : reject(new Error(`the job exited with code ${code}`))));
  });
}

function pad(text: string | number, width: number, align: 'left' | 'right' = 'right'): string {
  const value = String(text);
  return align === 'left' ? value.padEnd(width) : value.padStart(width);
}

function describePresets(): void {
  const presets = SpanRegistry.presets();
  console.log('Two libraries registered their span groups and presets on import:');
  console.log(`  trainer: ${TRAINER_GROUPS.join(', ')}`);
  console.log(`  rl:      ${RL_GROUPS.join(', ')}`);
  console.log('Presets merge across libraries; a spec can also name groups (per_step,reward):');
  for (const spec of SPECS) {
    const groups = spec === 'all' ? 'every registered group' : [...(presets.get(spec) ?? [])].join(', ');
    console.log(`  ${pad(spec, 9, 'left')} = ${groups}`);
  }
  console.log();
}

function printTable(runs: Run[]): void {
  const width = 10;
  console.log(`Spans per group and run (console exporter lines counted here; "-" = group off):`);
  console.log(`  ${pad('group', 26, 'left')}${runs.map((run) => pad(run.spec, width)).join('')}`);
  for (const [namespace, groups] of [['trainer', TRAINER_GROUPS], ['rl', RL_GROUPS]] as const) {
    groups.forEach((group, index) => {
      const label = `${pad(index === 0 ? namespace : '', 9, 'left')}${group}`;
      const counts = runs.map((run) => run.records.filter((record) => record.group === group).length || '-');
      console.log(`  ${pad(label, 26, 'left')}${counts.map((count) => pad(count, width)).join('')}`);
    });
  }
  console.log(`  ${pad('total', 26, 'left')}${runs.map((run) => pad(run.records.length, width)).join('')}`);
  console.log(`  ${pad('wall time (ms)', 26, 'left')}${runs.map((run) => pad(run.ms, width)).join('')}`);
  console.log();
}

function printSamples(run: Run): void {
  console.log(`Two of the ${run.records.length} lines the "${run.spec}" run wrote to its stdout:`);
  for (const name of ['train_step', 'reward']) {
    const record = run.records.find((candidate) => candidate.name === name);
    if (record) console.log(`  ${JSON.stringify(record)}`);
  }
  console.log();
}

/** Every span must be in the demo's trace, and each run's root span a child of that run's span here. */
function checkTrace(runs: Run[], traceId: string): boolean {
  const strays = runs.flatMap((run) => run.records.filter((record) => record.traceId !== traceId));
  const orphans = runs.filter((run) => !run.records.some((record) => record.name === 'train' && record.parentSpanId === run.parentSpanId));
  const total = runs.reduce((sum, run) => sum + run.records.length, 0);
  if (strays.length === 0 && orphans.length === 0) {
    console.log(`All ${total} spans belong to trace ${traceId}: each child process continued this demo's trace`);
    console.log('(its "train" span is a child of the "demo run" span here), passed down in TRACEPARENT.');
    return true;
  }
  console.log(`Trace check failed: ${strays.length} spans outside trace ${traceId}; runs without a parented root: ${orphans.map((run) => run.spec).join(', ') || 'none'}.`);
  return false;
}

async function main(): Promise<number> {
  console.log(`nemo-lens demo (backend: ${backend}): the same training job under three NEMO_LENS_SPAN_GROUPS specs.\n`);
  describePresets();

  // The demo's own spans (one root, one per run) only carry the trace to the children;
  // with the console exporter they are not exported, so the output stays readable.
  const telemetry = setupTelemetry(
    { enabled: true, exporter: EXPORTER === 'otlp' ? 'otlp' : 'none', spanGroups: '', serviceName: 'nemo-lens-demo' },
    { continueTraceFromEnv: false },
  );
  const runs: Run[] = [];
  let traceId = '';
  try {
    await spanCm('demo', async (root) => {
      traceId = root?.spanContext().traceId ?? '';
      for (const spec of SPECS) {
        await spanCm(`demo run ${spec}`, { attributes: { 'demo.spec': spec } }, async (span) => {
          const env = envWithTraceContext({
            ...process.env,
            NEMO_LENS_ENABLED: 'true',
            NEMO_LENS_SPAN_GROUPS: spec,
            NEMO_LENS_EXPORTER: EXPORTER,
            NEMO_LENS_RUN_ID: `demo-${spec}`,
            OTEL_SERVICE_NAME: 'nemo-lens-demo',
          });
          const started = Date.now();
          const records = await runJob(env);
          runs.push({ spec, parentSpanId: span?.spanContext().spanId ?? '', records, ms: Date.now() - started });
          console.log(`ran NEMO_LENS_SPAN_GROUPS=${pad(spec, 8, 'left')} -> ${pad(records.length, 3)} spans`);
        });
      }
    });
  } finally {
    await telemetry.shutdown();
  }
  console.log();

  if (EXPORTER !== 'console') {
    console.log(`The jobs exported with NEMO_LENS_EXPORTER=${EXPORTER}; look for trace ${traceId} in your tracing backend.`);
    return 0;
  }
  printTable(runs);
  printSamples(runs[runs.length - 1]!);
  const ok = checkTrace(runs, traceId);
  console.log('\nTo send the spans to a collector: NEMO_LENS_DEMO_EXPORTER=otlp OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 npm run demo');
  return ok ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
