/**
 * Runs inside a worker thread started by workers.spec.ts (see startScenarioWorker): loads
 * nemo-lens from the sources in the worker's own realm and plays the scenario named in
 * workerData, reporting to the parent with postMessage.
 */
import { parentPort, threadId, workerData } from 'node:worker_threads';

import { SpanRegistry, backend, enabledSpanGroups, isSpanGroupEnabled, managedSpan, nativeLoadError, setSpanGroupSpec, setupTelemetry, spanGroup } from '../../src/index';

export type Scenario =
  | { kind: 'registry'; namespace: string; groups: string[]; spec: string }
  | { kind: 'export'; spans: number; spanGroups: string }
  | { kind: 'stuck-sync' }
  | { kind: 'stuck-async' }
  | { kind: 'native-churn' };

export interface RegistryReport {
  threadId: number;
  backend: string;
  nativeLoadError: string | null;
  namespacesAtStart: string[];
  namespaces: string[];
  enabled: string[];
  gates: Record<string, boolean>;
}

const port = parentPort!;
const scenario = workerData as Scenario;

async function run(): Promise<void> {
  switch (scenario.kind) {
    case 'registry': {
      const namespacesAtStart = SpanRegistry.namespaces();
      SpanRegistry.register(scenario.namespace, scenario.groups);
      setSpanGroupSpec(scenario.spec);
      const gates = Object.fromEntries(['step', 'layer', 'rollout', 'main_only'].map((name) => [name, isSpanGroupEnabled(name)]));
      const report: RegistryReport = {
        threadId,
        backend,
        nativeLoadError: nativeLoadError?.message ?? null,
        namespacesAtStart,
        namespaces: SpanRegistry.namespaces(),
        enabled: [...enabledSpanGroups()],
        gates,
      };
      port.postMessage(report);
      return;
    }
    case 'export': {
      // The OTLP endpoint comes from OTEL_EXPORTER_OTLP_ENDPOINT in the worker's env.
      SpanRegistry.register('worker', ['step', 'layer']);
      const handle = setupTelemetry(
        { enabled: true, spanGroups: scenario.spanGroups, exporter: 'otlp' },
        { resourceAttributes: { 'test.thread_id': threadId }, continueTraceFromEnv: false },
      );
      for (let i = 0; i < scenario.spans; i++) {
        managedSpan('step', `worker-${threadId}-step`, { attributes: { i } }, () => managedSpan('layer', 'layer', () => i));
      }
      await handle.shutdown(5000);
      port.postMessage({ done: true, threadId });
      return;
    }
    case 'stuck-sync': {
      SpanRegistry.register('worker', ['step']);
      setupTelemetry({ enabled: true, spanGroups: 'step', exporter: 'none' });
      const step = spanGroup('step');
      managedSpan(step, 'stuck', () => {
        port.postMessage('in-span');
        // Busy forever inside the span; only terminate() ends this.
        let n = 0;
        for (;;) n = (n + 1) % 1_000_000;
      });
      return;
    }
    case 'stuck-async': {
      SpanRegistry.register('worker', ['step']);
      setupTelemetry({ enabled: true, spanGroups: 'step', exporter: 'none' });
      await managedSpan('step', 'stuck', async () => {
        port.postMessage('in-span');
        await new Promise(() => undefined);
      });
      return;
    }
    case 'native-churn': {
      // Registry churn (a core call each time) until terminated mid-call or between calls.
      let round = 0;
      port.postMessage('churning');
      for (;;) {
        SpanRegistry.register('churn', [`g${round % 64}`, 'step'], { p: ['step'] }, { allowOverride: true });
        setSpanGroupSpec(`p,g${round % 7}`);
        SpanRegistry.resolve('all,typo');
        round++;
      }
    }
  }
}

run().catch((error: unknown) => {
  port.postMessage({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
});
