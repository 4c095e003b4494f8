/**
 * A stand-in training library. Like any library instrumented with nemo-lens, it registers the
 * span groups it emits (and presets of them) once, at import, under its own namespace, and
 * tags each instrumentation site with a group. It never decides what is emitted: the user's
 * NEMO_LENS_SPAN_GROUPS does.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { SpanRegistry, managedSpan, spanGroup, traceFn } from '../../src/index';
import { rollout, updatePolicy } from './rl';

export const TRAINER_GROUPS = ['job', 'epoch', 'step', 'forward_backward', 'optimizer', 'checkpoint'];

SpanRegistry.register('trainer', TRAINER_GROUPS, {
  // Cheap enough for every run: a handful of spans per epoch.
  default: ['job', 'epoch', 'checkpoint'],
  // One span per step and per optimizer update; forward_backward (per micro-batch) is only in `all`.
  per_step: ['job', 'epoch', 'step', 'optimizer', 'checkpoint'],
});

// Gate handles for the hottest sites: `handle.enabled` is a plain field read.
const STEP = spanGroup('step');
const FORWARD_BACKWARD = spanGroup('forward_backward');

export interface TrainingPlan {
  readonly epochs: number;
  readonly stepsPerEpoch: number;
  readonly microBatches: number;
}

function forwardBackward(step: number, micro: number): number {
  return managedSpan(FORWARD_BACKWARD, 'forward_backward', (span) => {
    const loss = 2 / (1 + step) + micro * 0.01;
    // Attributes are built only when the span exists: a disabled site pays nothing for them.
    if (span) span.setAttributes({ 'train.micro_batch': micro, 'train.loss': loss });
    return loss;
  });
}

async function optimizerStep(step: number): Promise<void> {
  await managedSpan('optimizer', 'optimizer.step', async (span) => {
    if (span) span.setAttribute('train.lr', 1e-3 * 0.9 ** step);
    await sleep(1);
  });
}

// traceFn wraps a whole function: every call is a span of group `checkpoint` when enabled.
const saveCheckpoint = traceFn('checkpoint', 'checkpoint.save')(async function saveCheckpoint(epoch: number): Promise<string> {
  await sleep(2);
  return `ckpt-epoch${epoch}.pt`;
});

export async function train(plan: TrainingPlan): Promise<void> {
  await managedSpan('job', 'train', { attributes: { 'train.epochs': plan.epochs } }, async () => {
    let global = 0;
    for (let epoch = 0; epoch < plan.epochs; epoch++) {
      await managedSpan('epoch', `epoch ${epoch}`, async (span) => {
        if (span) span.setAttribute('train.epoch', epoch);
        for (let i = 0; i < plan.stepsPerEpoch; i++, global++) {
          const step = global;
          await managedSpan(STEP, 'train_step', async (stepSpan) => {
            const samples = await rollout(step);
            let loss = 0;
            for (let micro = 0; micro < plan.microBatches; micro++) loss += forwardBackward(step, micro);
            await optimizerStep(step);
            updatePolicy(step, samples);
            if (stepSpan) stepSpan.setAttributes({ 'train.step': step, 'train.loss': loss / plan.microBatches });
          });
        }
        const path = await saveCheckpoint(epoch);
        if (span) span.setAttribute('train.checkpoint', path);
      });
    }
  });
}
