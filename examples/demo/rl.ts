/**
 * A stand-in reinforcement-learning layer used by the trainer: a second library with its
 * own namespace, groups and presets. Presets with the same name merge across libraries, so
 * NEMO_LENS_SPAN_GROUPS=per_step turns on the per-step groups of both.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { SpanRegistry, managedSpan, spanGroup } from '../../src/index';

export const RL_GROUPS = ['rollout', 'reward', 'policy_update'];

SpanRegistry.register('rl', RL_GROUPS, {
  default: ['policy_update'],
  // `reward` is per sample, the finest grain here: only `all` (or naming it) turns it on.
  per_step: ['rollout', 'policy_update'],
});

const REWARD = spanGroup('reward');
const SAMPLES_PER_ROLLOUT = 4;

function scoreSample(step: number, sample: number): number {
  return managedSpan(REWARD, 'reward', (span) => {
    const reward = ((step * 7 + sample * 3) % 10) / 10;
    if (span) span.setAttributes({ 'rl.sample': sample, 'rl.reward': reward });
    return reward;
  });
}

/** Generate and score a few samples; returns their rewards. */
export async function rollout(step: number): Promise<number[]> {
  return managedSpan('rollout', 'rollout', async (span) => {
    await sleep(1);
    const rewards = Array.from({ length: SAMPLES_PER_ROLLOUT }, (_, sample) => scoreSample(step, sample));
    if (span) span.setAttributes({ 'rl.samples': rewards.length, 'rl.mean_reward': rewards.reduce((a, b) => a + b, 0) / rewards.length });
    return rewards;
  });
}

export function updatePolicy(step: number, rewards: number[]): void {
  managedSpan('policy_update', 'policy_update', (span) => {
    if (span) span.setAttributes({ 'rl.step': step, 'rl.advantage': Math.max(...rewards) - Math.min(...rewards) });
  });
}
