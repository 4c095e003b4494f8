/**
 * The resource every span of this process carries: who emitted it (service, run, user, rank).
 *
 * Later layers win:
 *   1. the SDK defaults (`telemetry.sdk.*`);
 *   2. process facts: `host.name`, `process.pid` (ranks of one job differ only by these),
 *      `service.version` (this library's, as the reference sets it) and what detect.ts finds
 *      (`slurm.*`, `k8s.*`, `host.gpu.count`, `deployment.environment`);
 *   3. `OTEL_RESOURCE_ATTRIBUTES` / `OTEL_SERVICE_NAME` (the SDK's env detector);
 *   4. the config: `service.name`, `nemo.run.id`, `nemo.user.id`;
 *   5. `resourceAttributes` given to setupTelemetry, with rank identity.
 * Rank identity, as the reference derives it: the rank is `dl.rank` from `resourceAttributes`,
 * else from `OTEL_RESOURCE_ATTRIBUTES` (the one channel that reaches a spawned worker, see
 * `encodeResourceAttributes`), and gives `service.instance.id = <runId>-rank<rank>` unless
 * either of those names the instance itself, which is then kept. No rank anywhere, and no
 * instance id either: the instance id is a per-process UUID (as the reference's SDK gives it)
 * and the setup warns `NEMO_LENS_NO_RANK` (the process is told apart, but cannot be filtered
 * by rank).
 * The run id is the config's, else a `nemo.run.id` in OTEL_RESOURCE_ATTRIBUTES, else
 * `SLURM_JOB_ID` (every rank of a Slurm job agrees on it), else a random UUID.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { AttributeValue, Attributes } from '@opentelemetry/api';
import { defaultResource, detectResources, envDetector, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { NemoLensError, NemoLensTypeError, describe } from '../errors';
import { VERSION } from '../version';
import { detectDeployment } from './detect';
import type { NemoLensConfig } from './config';

export const RUN_ID_ATTRIBUTE = 'nemo.run.id';
export const USER_ID_ATTRIBUTE = 'nemo.user.id';
export const RANK_ATTRIBUTE = 'dl.rank';
export const WORLD_SIZE_ATTRIBUTE = 'dl.world_size';
export const INSTANCE_ID_ATTRIBUTE = 'service.instance.id';

/** Friendlier spellings accepted in `resourceAttributes`, mapped to the attribute they mean. */
const ALIASES: Readonly<Record<string, string>> = {
  rank: RANK_ATTRIBUTE,
  worldSize: WORLD_SIZE_ATTRIBUTE,
  world_size: WORLD_SIZE_ATTRIBUTE,
};

export type ResourceAttributesInput = Readonly<Record<string, AttributeValue | undefined>>;

/** Checked `resourceAttributes`: aliases folded, rank and world size as integers. */
export interface CheckedResourceAttributes {
  readonly attributes: Attributes;
  readonly rank: number | undefined;
}

function invalid(message: string): NemoLensError {
  return new NemoLensError('ERR_NEMO_LENS_INVALID_ARGUMENT', `nemo-lens: ${message}`);
}

function isScalar(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && !Number.isNaN(value));
}

/** A non-negative integer, from a number or a decimal string such as `process.env.RANK`. */
function checkCount(value: unknown, key: string, minimum: number): number {
  const number = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < minimum) {
    throw invalid(`resourceAttributes["${key}"] must be an integer >= ${minimum} (a number or a decimal string), got ${describe(value)}.`);
  }
  return number;
}

export function checkResourceAttributes(value: unknown): CheckedResourceAttributes {
  if (value === undefined) return { attributes: {}, rank: undefined };
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Map) {
    throw new NemoLensTypeError(`nemo-lens: resourceAttributes must be a plain object of attribute name to value, got ${describe(value)}.`);
  }
  const attributes: Attributes = {};
  const origin: Record<string, string> = {};
  for (const [given, raw] of Object.entries(value as Record<string, unknown>)) {
    if (raw === undefined || raw === null) continue;
    const key = ALIASES[given] ?? given;
    if (key.trim() === '') throw invalid('resourceAttributes has an empty attribute name.');
    if (origin[key] !== undefined) {
      throw invalid(`resourceAttributes gives "${key}" twice (as "${origin[key]}" and "${given}"); keep one.`);
    }
    origin[key] = given;
    if (key === RANK_ATTRIBUTE) attributes[key] = checkCount(raw, given, 0);
    else if (key === WORLD_SIZE_ATTRIBUTE) attributes[key] = checkCount(raw, given, 1);
    else if (isScalar(raw) || (Array.isArray(raw) && raw.every((item) => item == null || isScalar(item)))) attributes[key] = raw as AttributeValue;
    else {
      throw new NemoLensTypeError(
        `nemo-lens: resourceAttributes["${given}"] must be a string, number, boolean or an array of them, got ${describe(raw)}.`,
      );
    }
  }
  const rank = attributes[RANK_ATTRIBUTE] as number | undefined;
  const worldSize = attributes[WORLD_SIZE_ATTRIBUTE] as number | undefined;
  if (rank !== undefined && worldSize !== undefined && rank >= worldSize) {
    throw invalid(`resourceAttributes: rank ${rank} is not below world size ${worldSize}; ranks count from 0.`);
  }
  return { attributes, rank };
}

/** What a setup will put on its resource, computed up front (random ids are drawn here). */
export interface PlannedResource {
  readonly detected: Attributes;
  readonly fromEnv: Attributes;
  readonly own: Attributes;
  readonly runId: string;
  /** No `dl.rank` and no `service.instance.id` reached the resource: warn `NEMO_LENS_NO_RANK`. */
  readonly missingRank: boolean;
}

export function planResourceAttributes(
  config: NemoLensConfig,
  checked: CheckedResourceAttributes,
  env: Readonly<Record<string, string | undefined>> = process.env,
): PlannedResource {
  const fromEnv = detectResources({ detectors: [envDetector] }).attributes;
  const envRunId = fromEnv[RUN_ID_ATTRIBUTE];
  const runId =
    config.runId ?? (typeof envRunId === 'string' && envRunId !== '' ? envRunId : undefined) ?? (env['SLURM_JOB_ID']?.trim() || randomUUID());
  const own: Attributes = { 'service.name': config.serviceName, [RUN_ID_ATTRIBUTE]: runId };
  if (config.userId !== undefined) own[USER_ID_ATTRIBUTE] = config.userId;
  const envRank = fromEnv[RANK_ATTRIBUTE];
  const rank = checked.rank ?? (envRank === undefined || String(envRank).trim() === '' ? undefined : String(envRank));
  const explicitIdentity = checked.attributes[INSTANCE_ID_ATTRIBUTE] !== undefined || fromEnv[INSTANCE_ID_ATTRIBUTE] !== undefined;
  // Without a rank, a per-process UUID, as the reference's Python SDK (>= 1.43) fills it in:
  // never the bare run id, which every rank of the job would share.
  if (!explicitIdentity) own[INSTANCE_ID_ATTRIBUTE] = rank === undefined ? randomUUID() : `${runId}-rank${rank}`;
  // Explicit resourceAttributes win, including an explicit service.instance.id.
  Object.assign(own, checked.attributes);
  const detected: Attributes = { 'service.version': VERSION, ...detectDeployment(env) };
  return { detected, fromEnv, own, runId, missingRank: rank === undefined && !explicitIdentity };
}

export function buildResource(planned: Pick<PlannedResource, 'detected' | 'fromEnv' | 'own'>): Resource {
  return defaultResource()
    .merge(resourceFromAttributes({ 'host.name': hostname(), 'process.pid': process.pid, ...planned.detected }))
    .merge(resourceFromAttributes(planned.fromEnv))
    .merge(resourceFromAttributes(planned.own));
}

/** The text of `NEMO_LENS_NO_RANK`, after the reference's. */
export const NO_RANK_MESSAGE =
  'nemo-lens: no dl.rank resource attribute was supplied, so telemetry from this process cannot be filtered by rank ' +
  'in the collector, and service.instance.id is not rank-derived. Pass resourceAttributes: { "dl.rank": rank, ' +
  '"dl.world_size": worldSize } to setupTelemetry(), or set OTEL_RESOURCE_ATTRIBUTES=dl.rank=<rank> in the process ' +
  'environment when you cannot reach the call site (a spawned worker: see encodeResourceAttributes). A single-process ' +
  'job can pass rank 0, or supply its own service.instance.id, to silence this.';
