/**
 * What a process can tell about where it runs, as the reference's `detect_resource()`:
 * Slurm (`SLURM_*`), Kubernetes (the downward-API variables a pod spec maps in), the number
 * of GPUs, and the deployment environment. One job's Python and Node processes then carry
 * the same attributes, so a collector can group them by job, node or pod.
 *
 * Every value comes from the given environment, except two probes, both best effort:
 * whether `/var/run/secrets/kubernetes.io` exists, and `nvidia-smi` when
 * `CUDA_VISIBLE_DEVICES` is unset. `nvidia-smi` runs synchronously (setup is synchronous),
 * so it is bounded: `GPU_PROBE_TIMEOUT_MS` (the reference waits up to 5 s; a hung driver must
 * not hold a job's start that long), killed past it, output capped, and its answer cached
 * per PATH for the process (the GPUs do not change; a test suite sets up hundreds of times).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Attributes } from '@opentelemetry/api';
import { stripWhitespace } from '../whitespace';

type Env = Readonly<Record<string, string | undefined>>;

const SLURM: ReadonlyArray<readonly [string, string]> = [
  ['SLURM_JOB_NAME', 'slurm.job.name'],
  ['SLURM_NODELIST', 'slurm.nodelist'],
  ['SLURM_NNODES', 'slurm.nnodes'],
  ['SLURM_NTASKS', 'slurm.ntasks'],
  ['SLURM_PARTITION', 'slurm.partition'],
  ['SLURM_CLUSTER_NAME', 'slurm.cluster.name'],
];

/** In order: the first variable that is set names the attribute (`HOSTNAME` is the pod name's fallback). */
const KUBERNETES: ReadonlyArray<readonly [string, string]> = [
  ['K8S_NAMESPACE', 'k8s.namespace.name'],
  ['K8S_POD_NAME', 'k8s.pod.name'],
  ['K8S_POD_UID', 'k8s.pod.uid'],
  ['K8S_NODE_NAME', 'k8s.node.name'],
  ['K8S_CONTAINER_NAME', 'k8s.container.name'],
  ['K8S_JOB_NAME', 'k8s.job.name'],
  ['HOSTNAME', 'k8s.pod.name'],
];

const KUBERNETES_SECRETS = '/var/run/secrets/kubernetes.io';

/** `slurm.*` from `SLURM_*`, when `SLURM_JOB_ID` is set (non-empty). */
export function detectSlurm(env: Env): Attributes {
  const jobId = env['SLURM_JOB_ID'];
  if (!jobId) return {};
  const attributes: Attributes = { 'slurm.job.id': jobId };
  for (const [variable, attribute] of SLURM) {
    const value = env[variable];
    if (value) attributes[attribute] = value;
  }
  return attributes;
}

/** `k8s.*` from the downward-API variables, when in Kubernetes (a service host, or the secrets mount). */
export function detectKubernetes(env: Env, inCluster: () => boolean = () => existsSync(KUBERNETES_SECRETS)): Attributes {
  if (!env['KUBERNETES_SERVICE_HOST'] && !inCluster()) return {};
  const attributes: Attributes = {};
  for (const [variable, attribute] of KUBERNETES) {
    const value = env[variable];
    if (value && attributes[attribute] === undefined) attributes[attribute] = value;
  }
  return attributes;
}

/** GPUs named by `CUDA_VISIBLE_DEVICES` (blank: none), as the reference counts them; undefined when unset. */
export function gpuCountFromCudaVisibleDevices(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  return stripWhitespace(value) === '' ? 0 : value.split(',').length;
}

/** GPUs in `nvidia-smi --query-gpu=count --format=csv,noheader` output: one non-blank line per GPU. */
export function gpuCountFromNvidiaSmi(stdout: string): number | undefined {
  const lines = stdout.split('\n').filter((line) => stripWhitespace(line) !== '');
  return lines.length > 0 ? lines.length : undefined;
}

/** How long setup waits for `nvidia-smi` before giving up on it. */
export const GPU_PROBE_TIMEOUT_MS = 2_000;

const probed = new Map<string, number | undefined>();

/** Run `nvidia-smi` (found on `env.PATH`) within the bound; undefined when absent, failing or slow. */
export function probeNvidiaSmi(env: Env, timeoutMs: number = GPU_PROBE_TIMEOUT_MS): number | undefined {
  const key = `${env['PATH'] ?? ''}\0${timeoutMs}`;
  if (probed.has(key)) return probed.get(key);
  let count: number | undefined;
  try {
    const result = spawnSync('nvidia-smi', ['--query-gpu=count', '--format=csv,noheader'], {
      env: env as NodeJS.ProcessEnv,
      encoding: 'utf8',
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
      maxBuffer: 64 * 1024,
      stdio: ['ignore', 'pipe', 'ignore'],
      windowsHide: true,
    });
    if (result.error === undefined && result.status === 0) count = gpuCountFromNvidiaSmi(result.stdout);
  } catch {
    // Best effort: no GPU count is better than a failed setup.
  }
  probed.set(key, count);
  return count;
}

/** `host.gpu.count`: `CUDA_VISIBLE_DEVICES` when set, else nvidia-smi's answer, else nothing. */
export function detectGpuCount(env: Env, probe: (env: Env) => number | undefined = probeNvidiaSmi): Attributes {
  const count = gpuCountFromCudaVisibleDevices(env['CUDA_VISIBLE_DEVICES']) ?? probe(env);
  return count === undefined ? {} : { 'host.gpu.count': count };
}

/** `deployment.environment` from `DEPLOYMENT_ENV`, else `ENVIRONMENT` (as the reference reads them). */
export function detectDeploymentEnvironment(env: Env): Attributes {
  const name = env['DEPLOYMENT_ENV'] ?? env['ENVIRONMENT'] ?? '';
  return name ? { 'deployment.environment': name } : {};
}

/** Everything above, merged in the reference's order (GPUs, Slurm, Kubernetes). */
export function detectDeployment(env: Env): Attributes {
  return { ...detectDeploymentEnvironment(env), ...detectGpuCount(env), ...detectSlurm(env), ...detectKubernetes(env) };
}
