/** Span exporters that misbehave on purpose, for the telemetry tests. */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** Fails every export while `failing` is true, succeeds otherwise; counts calls and spans. */
export class SwitchableExporter implements SpanExporter {
  failing = true;
  calls = 0;
  spans: ReadableSpan[] = [];

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.calls++;
    if (this.failing) {
      done({ code: ExportResultCode.FAILED, error: new Error('collector says no') });
      return;
    }
    this.spans.push(...spans);
    done({ code: ExportResultCode.SUCCESS });
  }

  async shutdown(): Promise<void> {}
}

/** Never calls back: a collector that accepted the connection and went silent. */
export class HangingExporter implements SpanExporter {
  calls = 0;

  export(_spans: ReadableSpan[], _done: (result: ExportResult) => void): void {
    this.calls++;
  }

  shutdown(): Promise<void> {
    return new Promise(() => undefined);
  }
}

/** Throws from export: a buggy exporter. */
export class ThrowingExporter implements SpanExporter {
  export(): void {
    throw new Error('exporter bug');
  }

  async shutdown(): Promise<void> {
    throw new Error('shutdown bug too');
  }
}

/** Like InMemorySpanExporter, but keeps its spans after shutdown (the SDK's clears them). */
export class RecordingExporter implements SpanExporter {
  readonly spans: ReadableSpan[] = [];

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.spans.push(...spans);
    done({ code: ExportResultCode.SUCCESS });
  }

  getFinishedSpans(): ReadableSpan[] {
    return this.spans;
  }

  async shutdown(): Promise<void> {}
}
