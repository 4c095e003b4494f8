/**
 * Identity and context between the processes of one job (issue 13, items 3 and 5), as the
 * Python reference has them: a worker spawned with `dl.rank` in OTEL_RESOURCE_ATTRIBUTES is
 * `<run>-rank<r>`, an instance id given there is kept, Slurm/Kubernetes/GPU facts are
 * detected, and a Python parent's lower-case carrier (with baggage) is continued. The
 * process-level cases run a real child process with the environment its parent built.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

import { ROOT_CONTEXT, TraceFlags, propagation, trace } from '@opentelemetry/api';
import test from 'ava';

import { contextFromEnv, encodeResourceAttributes, envWithTraceContext, onWarning, version } from '../src/index';
import {
  GPU_PROBE_TIMEOUT_MS,
  detectGpuCount,
  detectKubernetes,
  detectSlurm,
  gpuCountFromCudaVisibleDevices,
  gpuCountFromNvidiaSmi,
  probeNvidiaSmi,
} from '../src/telemetry/detect';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..');
const CHILD = path.join(__dirname, 'helpers', 'child-identity.ts');

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';
const TRACEPARENT = `00-${TRACE_ID}-${SPAN_ID}-01`;

interface ChildReport {
  resource: Record<string, unknown>;
  traceId: string;
  parentSpanId: string | undefined;
  baggage: Record<string, string>;
  warnings: string[];
  grandchildEnv: Record<string, string>;
}

/** The child's environment: only what is given, plus PATH (no stray OTEL or SLURM variables of this machine). */
async function runChild(env: Record<string, string | undefined>): Promise<ChildReport> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', CHILD], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'], NEMO_LENS_BACKEND: process.env['NEMO_LENS_BACKEND'], CUDA_VISIBLE_DEVICES: '', ...env },
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as ChildReport;
}

function captureWarnings<T>(fn: () => T): { value: T; codes: string[]; messages: string[] } {
  const seen: Array<{ code: string; message: string }> = [];
  const off = onWarning((warning) => seen.push(warning));
  try {
    return { value: fn(), codes: seen.map((w) => w.code), messages: seen.map((w) => w.message) };
  } finally {
    off();
  }
}

// ---- encodeResourceAttributes ----------------------------------------------------------

test('encodeResourceAttributes percent-encodes values as Python quote(value, safe="") does', (t) => {
  t.is(encodeResourceAttributes({ 'nemo.run.id': 'exp/2026-01,seed=7' }, ''), 'nemo.run.id=exp%2F2026-01%2Cseed%3D7');
  // Python: quote("a b!*()'~é😀", safe='') == 'a%20b%21%2A%28%29%27~%C3%A9%F0%9F%98%80'
  t.is(encodeResourceAttributes({ k: "a b!*()'~é😀" }, ''), 'k=a%20b%21%2A%28%29%27~%C3%A9%F0%9F%98%80');
  t.is(encodeResourceAttributes({ 'dl.rank': 3, 'dl.world_size': 8, flag: false, big: 2n ** 70n }, ''), 'dl.rank=3,dl.world_size=8,flag=false,big=1180591620717411303424');
});

test('encodeResourceAttributes keeps what it inherits, byte for byte, and supersedes the keys it writes', (t) => {
  const inherited = 'dl.rank=0, team = r%20l ,,  ,dl.world_size=8';
  t.is(encodeResourceAttributes({ 'dl.rank': 5 }, inherited), ' team = r%20l ,dl.world_size=8,dl.rank=5');
  const twice = encodeResourceAttributes({ 'dl.rank': 6 }, encodeResourceAttributes({ 'dl.rank': 5 }, 'a=1'));
  t.is(twice, 'a=1,dl.rank=6', 'feeding the result back in does not pile up copies');
  t.is(encodeResourceAttributes({}, 'a=1,,b=2'), 'a=1,b=2');
  t.is(encodeResourceAttributes(new Map([['x', 'y']]), ''), 'x=y');
});

test.serial('encodeResourceAttributes reads the live OTEL_RESOURCE_ATTRIBUTES by default', (t) => {
  const saved = process.env['OTEL_RESOURCE_ATTRIBUTES'];
  try {
    process.env['OTEL_RESOURCE_ATTRIBUTES'] = 'launcher=slurm,dl.rank=1';
    t.is(encodeResourceAttributes({ 'dl.rank': 2 }), 'launcher=slurm,dl.rank=2');
    delete process.env['OTEL_RESOURCE_ATTRIBUTES'];
    t.is(encodeResourceAttributes({ 'dl.rank': 2 }), 'dl.rank=2');
  } finally {
    if (saved === undefined) delete process.env['OTEL_RESOURCE_ATTRIBUTES'];
    else process.env['OTEL_RESOURCE_ATTRIBUTES'] = saved;
  }
});

test('encodeResourceAttributes drops what cannot round-trip, with a warning each; null and undefined silently', (t) => {
  const { value, codes, messages } = captureWarnings(() =>
    encodeResourceAttributes({ 'a,b': 1, 'c=d': 2, '  ': 3, list: [1, 2] as never, obj: { x: 1 } as never, lone: 'x\ud800', none: null, gone: undefined, ok: 'yes' }, ''),
  );
  t.is(value, 'ok=yes');
  t.deepEqual(codes, Array(6).fill('NEMO_LENS_RESOURCE_ATTRIBUTE_DROPPED'));
  t.regex(messages[0]!, /"a,b" cannot be carried in OTEL_RESOURCE_ATTRIBUTES/);
  t.regex(messages[3]!, /"list" has an array as its value/);
  const mapped = captureWarnings(() => encodeResourceAttributes(new Map<unknown, string>([[7, 'x']]) as never, ''));
  t.is(mapped.value, '');
  t.regex(mapped.messages[0]!, /key number 7 is not a string/);
  t.throws(() => encodeResourceAttributes('dl.rank=1' as never), { message: /needs an object or a Map/ });
  t.throws(() => encodeResourceAttributes({}, 5 as never), { message: /needs inherited as a string/ });
});

// ---- detection -------------------------------------------------------------------------

test('Slurm: slurm.* from SLURM_* when SLURM_JOB_ID is set', (t) => {
  t.deepEqual(detectSlurm({ SLURM_NNODES: '2' }), {});
  t.deepEqual(
    detectSlurm({
      SLURM_JOB_ID: '4242',
      SLURM_JOB_NAME: 'pretrain',
      SLURM_NODELIST: 'node[01-02]',
      SLURM_NNODES: '2',
      SLURM_NTASKS: '16',
      SLURM_PARTITION: 'batch',
      SLURM_CLUSTER_NAME: 'eos',
      SLURM_PROCID: '3',
      SLURM_JOB_PARTITION: '',
    }),
    {
      'slurm.job.id': '4242',
      'slurm.job.name': 'pretrain',
      'slurm.nodelist': 'node[01-02]',
      'slurm.nnodes': '2',
      'slurm.ntasks': '16',
      'slurm.partition': 'batch',
      'slurm.cluster.name': 'eos',
    },
  );
});

test('Kubernetes: k8s.* from the downward-API variables, only in a cluster; HOSTNAME is the pod name fallback', (t) => {
  const env = { K8S_NAMESPACE: 'ml', K8S_POD_UID: 'uid-1', K8S_NODE_NAME: 'n1', K8S_CONTAINER_NAME: 'trainer', K8S_JOB_NAME: 'job-7', HOSTNAME: 'pod-abc' };
  t.deepEqual(detectKubernetes(env, () => false), {}, 'not in a cluster: nothing');
  const inCluster = { ...env, KUBERNETES_SERVICE_HOST: '10.0.0.1' };
  t.deepEqual(detectKubernetes(inCluster, () => false), {
    'k8s.namespace.name': 'ml',
    'k8s.pod.name': 'pod-abc',
    'k8s.pod.uid': 'uid-1',
    'k8s.node.name': 'n1',
    'k8s.container.name': 'trainer',
    'k8s.job.name': 'job-7',
  });
  t.is(detectKubernetes({ ...inCluster, K8S_POD_NAME: 'explicit' }, () => false)['k8s.pod.name'], 'explicit', 'K8S_POD_NAME before HOSTNAME');
  t.deepEqual(detectKubernetes({ HOSTNAME: 'pod-x' }, () => true), { 'k8s.pod.name': 'pod-x' }, 'the secrets mount also says "in a cluster"');
});

test('GPUs: CUDA_VISIBLE_DEVICES is counted as the reference counts it; nvidia-smi lines likewise', (t) => {
  t.is(gpuCountFromCudaVisibleDevices(undefined), undefined);
  t.is(gpuCountFromCudaVisibleDevices(''), 0);
  t.is(gpuCountFromCudaVisibleDevices(' \t'), 0);
  t.is(gpuCountFromCudaVisibleDevices('0'), 1);
  t.is(gpuCountFromCudaVisibleDevices('0,1,2,3'), 4);
  t.is(gpuCountFromCudaVisibleDevices('GPU-8a1b,GPU-77c2'), 2);
  t.is(gpuCountFromNvidiaSmi('8\n8\n8\n8\n8\n8\n8\n8\n'), 8);
  t.is(gpuCountFromNvidiaSmi('\n  \n'), undefined);
  let probed = 0;
  const probe = () => {
    probed++;
    return 2;
  };
  t.deepEqual(detectGpuCount({ CUDA_VISIBLE_DEVICES: '0,1,2' }, probe), { 'host.gpu.count': 3 });
  t.is(probed, 0, 'no probe when CUDA_VISIBLE_DEVICES answers');
  t.deepEqual(detectGpuCount({}, probe), { 'host.gpu.count': 2 });
  t.deepEqual(detectGpuCount({}, () => undefined), {});
});

function fakeNvidiaSmi(script: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nemo-lens-smi-'));
  fs.writeFileSync(path.join(dir, 'nvidia-smi'), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  return dir;
}

test('nvidia-smi: its answer is used; absent, failing or hung, there is no count, within the bound', (t) => {
  t.is(probeNvidiaSmi({ PATH: fakeNvidiaSmi('printf "2\\n2\\n"') }), 2);
  t.is(probeNvidiaSmi({ PATH: fakeNvidiaSmi('echo "NVIDIA-SMI has failed" >&2; exit 9') }), undefined);
  t.is(probeNvidiaSmi({ PATH: fs.mkdtempSync(path.join(os.tmpdir(), 'nemo-lens-empty-')) }), undefined);
  const hung = { PATH: fakeNvidiaSmi('exec /bin/sleep 60') };
  const start = process.hrtime.bigint();
  t.is(probeNvidiaSmi(hung, 500), undefined);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  // Generous (a shared machine): the point is that a hung driver is not waited on for 60 s.
  t.true(ms < 10_000, `returned after ${ms} ms`);
  t.true(GPU_PROBE_TIMEOUT_MS <= 5_000, 'the default bound is no longer than the reference\'s 5 s');
});

// ---- the environment carrier -----------------------------------------------------------

test('envWithTraceContext writes both spellings, with baggage, and resource attributes on request', (t) => {
  const remote = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED });
  const withBaggage = propagation.setBaggage(remote, propagation.createBaggage({ 'customer.id': { value: '42' } }));
  const env = envWithTraceContext({ HOME: '/h', OTEL_RESOURCE_ATTRIBUTES: 'team=rl,dl.rank=0' }, { context: withBaggage, resourceAttributes: { 'dl.rank': 3 } });
  t.deepEqual(env, {
    HOME: '/h',
    OTEL_RESOURCE_ATTRIBUTES: 'team=rl,dl.rank=3',
    TRACEPARENT: TRACEPARENT,
    traceparent: TRACEPARENT,
    BAGGAGE: 'customer.id=42',
    baggage: 'customer.id=42',
  });
  const stale = envWithTraceContext({ traceparent: 'stale', TRACEPARENT: 'stale', baggage: 'old=1', BAGGAGE: 'old=1' }, { context: ROOT_CONTEXT });
  t.deepEqual(stale, {}, 'no span, no baggage: stale keys of both spellings are removed');
});

test('contextFromEnv reads a Python parent\'s lower-case carrier, baggage included; lower case wins over a stale upper case', (t) => {
  const python = contextFromEnv({ traceparent: TRACEPARENT, tracestate: 'vendor=abc', baggage: 'customer.id=42,canary=true' });
  t.is(trace.getSpanContext(python)?.spanId, SPAN_ID);
  t.is(trace.getSpanContext(python)?.traceState?.get('vendor'), 'abc');
  t.is(propagation.getBaggage(python)?.getEntry('customer.id')?.value, '42');
  t.is(propagation.getBaggage(contextFromEnv({ BAGGAGE: 'a=1' }))?.getEntry('a')?.value, '1', 'upper-case baggage is read too');
  const stale = `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`;
  t.is(trace.getSpanContext(contextFromEnv({ TRACEPARENT: stale, traceparent: TRACEPARENT }))?.spanId, SPAN_ID);
  t.is(trace.getSpanContext(contextFromEnv({ TRACEPARENT: TRACEPARENT, traceparent: ' ' }))?.spanId, SPAN_ID, 'a blank lower-case value falls through');
});

// ---- whole processes -------------------------------------------------------------------

test.serial('a worker spawned with dl.rank in OTEL_RESOURCE_ATTRIBUTES is <run>-rank<r>, in the parent\'s trace, with its baggage', async (t) => {
  const remote = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED });
  const context = propagation.setBaggage(remote, propagation.createBaggage({ 'customer.id': { value: '42' } }));
  const env = envWithTraceContext({ CHILD_RUN_ID: 'exp,1' }, { context, resourceAttributes: { 'dl.rank': 5, 'dl.world_size': 8 } });
  const child = await runChild(env);
  t.is(child.resource['dl.rank'], '5', 'from the env channel a rank is a string, as in the reference');
  t.is(child.resource['service.instance.id'], 'exp,1-rank5');
  t.is(child.resource['service.version'], version);
  t.is(child.resource['host.gpu.count'], 0, 'CUDA_VISIBLE_DEVICES="" means no GPU');
  t.is(child.traceId, TRACE_ID);
  t.is(child.parentSpanId, SPAN_ID);
  t.deepEqual(child.baggage, { 'customer.id': '42' });
  t.false(child.warnings.includes('NEMO_LENS_NO_RANK'));
  t.is(child.grandchildEnv['baggage'], 'customer.id=42', 'baggage travels on to the next process');
  t.is(child.grandchildEnv['traceparent']?.split('-')[1], TRACE_ID);
});

test.serial('a Python parent\'s carrier (lower-case env keys) is continued by a Node child', async (t) => {
  // What `env.update(inject_context({}))` gives a Python parent's subprocess.
  const child = await runChild({ traceparent: TRACEPARENT, baggage: 'canary=true', OTEL_RESOURCE_ATTRIBUTES: 'dl.rank=2' });
  t.is(child.traceId, TRACE_ID);
  t.is(child.parentSpanId, SPAN_ID);
  t.deepEqual(child.baggage, { canary: 'true' });
});

test.serial('an instance id given in OTEL_RESOURCE_ATTRIBUTES is kept; no rank and no instance id warns NEMO_LENS_NO_RANK', async (t) => {
  const named = await runChild({ CHILD_RUN_ID: 'r', OTEL_RESOURCE_ATTRIBUTES: 'service.instance.id=ckpt-writer,dl.rank=1' });
  t.is(named.resource['service.instance.id'], 'ckpt-writer');
  t.false(named.warnings.includes('NEMO_LENS_NO_RANK'));
  const sidecar = await runChild({ CHILD_RUN_ID: 'r', OTEL_RESOURCE_ATTRIBUTES: 'service.instance.id=agent' });
  t.false(sidecar.warnings.includes('NEMO_LENS_NO_RANK'), 'a process that named itself has nothing to report');
  const anonymous = await runChild({ CHILD_RUN_ID: 'r' });
  t.true(anonymous.warnings.includes('NEMO_LENS_NO_RANK'));
  t.regex(String(anonymous.resource['service.instance.id']), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'a per-process UUID, as the reference\'s SDK');
});

test.serial('Slurm and Kubernetes facts and CUDA_VISIBLE_DEVICES reach the resource of a real setup', async (t) => {
  const child = await runChild({
    CHILD_RUN_ID: 'r',
    OTEL_RESOURCE_ATTRIBUTES: 'dl.rank=0',
    SLURM_JOB_ID: '77',
    SLURM_NTASKS: '4',
    KUBERNETES_SERVICE_HOST: '10.0.0.1',
    K8S_NAMESPACE: 'ml',
    HOSTNAME: 'pod-1',
    CUDA_VISIBLE_DEVICES: '0,1',
    DEPLOYMENT_ENV: 'staging',
  });
  t.like(child.resource, {
    'slurm.job.id': '77',
    'slurm.ntasks': '4',
    'k8s.namespace.name': 'ml',
    'k8s.pod.name': 'pod-1',
    'host.gpu.count': 2,
    'deployment.environment': 'staging',
  });
});
