/**
 * The `console` exporter: one JSON object per span per line on stdout, so a run can be read
 * by a person, grepped, or piped into `jq` without a collector. The SDK's ConsoleSpanExporter
 * prints multi-line `util.inspect` output, which none of those tools can parse.
 */
import { hrTimeToMicroseconds, ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { SpanStatusCode, type HrTime } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { SPAN_GROUP_ATTRIBUTE } from '../span';


/** What one line holds; field order is stable so lines diff well. */
export interface ConsoleSpanRecord {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  group: string | null;
  start: string;
  end: string;
  durationMs: number;
  status: 'UNSET' | 'OK' | 'ERROR';
  statusMessage?: string;
  attributes: Record<string, unknown>;
  events?: Array<{ name: string; attributes: Record<string, unknown> }>;
  service: string | null;
}

const STATUS_NAMES = { [SpanStatusCode.UNSET]: 'UNSET', [SpanStatusCode.OK]: 'OK', [SpanStatusCode.ERROR]: 'ERROR' } as const;

function isoTime(time: HrTime): string {
  // Milliseconds in the ISO text; the duration keeps microseconds.
  return new Date(time[0] * 1000 + time[1] / 1e6).toISOString();
}

export function toConsoleRecord(span: ReadableSpan): ConsoleSpanRecord {
  const context = span.spanContext();
  const group = span.attributes[SPAN_GROUP_ATTRIBUTE];
  const service = span.resource.attributes['service.name'];
  const record: ConsoleSpanRecord = {
    name: span.name,
    traceId: context.traceId,
    spanId: context.spanId,
    parentSpanId: span.parentSpanContext?.spanId ?? null,
    group: typeof group === 'string' ? group : null,
    start: isoTime(span.startTime),
    end: isoTime(span.endTime),
    durationMs: hrTimeToMicroseconds(span.duration) / 1000,
    status: STATUS_NAMES[span.status.code] ?? 'UNSET',
    attributes: { ...span.attributes },
    service: typeof service === 'string' ? service : null,
  };
  if (span.status.message) record.statusMessage = span.status.message;
  if (span.events.length > 0) record.events = span.events.map((event) => ({ name: event.name, attributes: { ...event.attributes } }));
  return record;
}

/** What the exporter writes to: a Node `Writable` such as stdout (typed structurally, so the
 * shipped declarations need no Node types). */
export interface LineSink {
  write(chunk: string, callback: (error?: Error | null) => void): unknown;
}

/** Writes to `stream` (default stdout); a JSON line per span, one write per batch. */
export class ConsoleJsonSpanExporter implements SpanExporter {
  private stopped = false;

  constructor(private readonly stream: LineSink = process.stdout) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (this.stopped) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error('the console exporter is shut down') });
      return;
    }
    let text = '';
    for (const span of spans) text += `${JSON.stringify(toConsoleRecord(span))}\n`;
    this.stream.write(text, (error?: Error | null) => {
      resultCallback(error ? { code: ExportResultCode.FAILED, error } : { code: ExportResultCode.SUCCESS });
    });
  }

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {
    this.stopped = true;
  }
}
