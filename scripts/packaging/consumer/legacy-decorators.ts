/**
 * `@traceFn` under `experimentalDecorators` (legacy decorators, as NestJS and TypeORM use),
 * with no Node types: type-checked by every TypeScript the package test uses, then compiled
 * (TypeScript's legacy decorator emit) and run: the decorated method keeps `this`, its
 * arguments and result, and is traced per call while its group is enabled.
 */
import { SpanRegistry } from 'nemo-lens';
import { setupTestTelemetry } from 'nemo-lens/testing';
import { traceFn as darkTraceFn } from 'nemo-lens/fallbacks';
import { traceFn } from 'nemo-lens';

SpanRegistry.register('legacy', ['step', 'layer'], { default: ['step'] });

class Trainer {
  constructor(private readonly rate: number) {}

  @traceFn('step', 'optimizer_step')
  optimizerStep(grad: number): number {
    return grad * this.rate;
  }

  @traceFn('layer', 'forward')
  async forward(x: number): Promise<number> {
    return x + this.rate;
  }

  @darkTraceFn('step', 'never_traced')
  untraced(): string {
    return 'plain';
  }
}

async function main(): Promise<void> {
  const telemetry = setupTestTelemetry({ spanGroups: 'default' });
  const trainer = new Trainer(2);
  const results = [trainer.optimizerStep(3), await trainer.forward(1), trainer.untraced()];
  await telemetry.handle.shutdown();
  const names = telemetry.spans().map((span) => span.name);
  if (JSON.stringify(results) !== '[6,3,"plain"]') throw new Error(`results ${JSON.stringify(results)}`);
  if (JSON.stringify(names) !== '["optimizer_step"]') throw new Error(`spans ${JSON.stringify(names)}`);
  if (Trainer.prototype.optimizerStep.name !== 'optimizerStep') throw new Error('the method keeps its name');
  console.log('legacy decorators: @traceFn traced optimizer_step (enabled), not forward (disabled); results kept');
}

main().catch((error: unknown) => {
  console.log(String(error));
  throw error;
});
