/** An enabled telemetry setup with `spec`, as the conformance `setup` op asks: the real thing, exporting to memory. */
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { setupTelemetry } from '../../src/index';

export async function enabledSetup(spec: string): Promise<void> {
  setupTelemetry({ enabled: true, spanGroups: spec }, { spanExporter: new InMemorySpanExporter(), allowReinit: true });
}
