/**
 * The resource every span of this process carries: who emitted it (service, run, user, rank).
 *
 * Later layers win:
 *   1. the SDK defaults (`telemetry.sdk.*`);
 *   2. process facts: `host.name`, `process.pid` (ranks of one job differ only by these);
 *   3. `OTEL_RESOURCE_ATTRIBUTES` / `OTEL_SERVICE_NAME` (the SDK's env detector);
 *   4. the config: `service.name`, `nemo.run.id`, `nemo.user.id`;
 *   5. `resourceAttributes` given to setupTelemetry, with rank identity:
 *      `dl.rank`, `dl.world_size` and `service.instance.id = <runId>-rank<rank>`.
 * The run id is the config's, else a `nemo.run.id` in OTEL_RESOURCE_ATTRIBUTES, else
 * `SLURM_JOB_ID` (every rank of a Slurm job agrees on it), else a random UUID.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { AttributeValue, Attributes } from '@opentelemetry/api';
import { defaultResource, detectResources, envDetector, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { NemoLensError, NemoLensTypeError, describe } from '../errors';
import type { NemoLensConfig } from './config';

export const RUN_ID_ATTRIBUTE = 'nemo.run.id';
export const USER_ID_ATTRIBUTE = 'nemo.user.id';
export const RANK_ATTRIBUTE = 'dl.rank';
export const WORLD_SIZE_ATTRIBUTE = 'dl.world_size';

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

/** The attributes a setup will put on its resource (computed up front: random ids are drawn here). */
export function planResourceAttributes(
  config: NemoLensConfig,
  checked: CheckedResourceAttributes,
  env: Readonly<Record<string, string | undefined>> = process.env,
): { fromEnv: Attributes; own: Attributes; runId: string } {
  const fromEnv = detectResources({ detectors: [envDetector] }).attributes;
  const envRunId = fromEnv[RUN_ID_ATTRIBUTE];
  const runId =
    config.runId ?? (typeof envRunId === 'string' && envRunId !== '' ? envRunId : undefined) ?? (env['SLURM_JOB_ID']?.trim() || randomUUID());
  const own: Attributes = { 'service.name': config.serviceName, [RUN_ID_ATTRIBUTE]: runId };
  if (config.userId !== undefined) own[USER_ID_ATTRIBUTE] = config.userId;
  if (checked.rank !== undefined) own['service.instance.id'] = `${runId}-rank${checked.rank}`;
  // Explicit resourceAttributes win, including an explicit service.instance.id.
  Object.assign(own, checked.attributes);
  return { fromEnv, own, runId };
}

export function buildResource(planned: { fromEnv: Attributes; own: Attributes }): Resource {
  return defaultResource()
    .merge(resourceFromAttributes({ 'host.name': hostname(), 'process.pid': process.pid }))
    .merge(resourceFromAttributes(planned.fromEnv))
    .merge(resourceFromAttributes(planned.own));
}
