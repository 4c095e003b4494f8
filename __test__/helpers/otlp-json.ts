/**
 * OTLP/JSON trace data (the http/json exporter's body, and what Jaeger's /api/v3 query API
 * answers) → the same DecodedSpan shape as the protobuf decoder's. JSON needs no wire decoding:
 * this only walks the parsed object, reading ids as hex (OTLP/JSON) or base64 (proto3 JSON).
 */
import type { DecodedSpan } from './protobuf';

/** Hex ids whether the JSON exporter sent hex (OTLP/JSON) or base64. */
function jsonId(value: unknown): string {
  if (typeof value !== 'string' || value === '') return '';
  return /^[0-9a-f]+$/i.test(value) ? value.toLowerCase() : Buffer.from(value, 'base64').toString('hex');
}

function jsonAnyValue(value: Record<string, unknown> | undefined): unknown {
  if (value === undefined) return null;
  if ('stringValue' in value) return value['stringValue'];
  if ('boolValue' in value) return value['boolValue'];
  if ('intValue' in value) return Number(value['intValue']);
  if ('doubleValue' in value) return Number(value['doubleValue']);
  if ('arrayValue' in value) return ((value['arrayValue'] as { values?: Array<Record<string, unknown>> }).values ?? []).map(jsonAnyValue);
  if ('kvlistValue' in value) return jsonKeyValues((value['kvlistValue'] as { values?: JsonKeyValue[] }).values);
  return null;
}

type JsonKeyValue = { key: string; value?: Record<string, unknown> };

function jsonKeyValues(list: JsonKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, jsonAnyValue(value)]));
}

/** OTLP/JSON ExportTraceServiceRequest body → spans. */
export function decodeJsonTraceRequest(body: Buffer): DecodedSpan[] {
  return decodeJsonTraceData(JSON.parse(body.toString('utf8')) as JsonTraceData);
}

/** The fields of an OTLP/JSON span this decoder reads (ids hex or base64, times as strings). */
interface JsonSpan {
  name: string;
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  kind?: number;
  startTimeUnixNano?: string | number;
  endTimeUnixNano?: string | number;
  attributes?: JsonKeyValue[];
  events?: Array<{ name: string; attributes?: JsonKeyValue[] }>;
  status?: { code?: number; message?: string };
}

interface JsonResourceSpans {
  resource?: { attributes?: JsonKeyValue[] };
  scopeSpans?: Array<{ scope?: { name?: string }; spans?: JsonSpan[] }>;
}

export interface JsonTraceData {
  resourceSpans?: JsonResourceSpans[];
}

/** A parsed OTLP/JSON TracesData or ExportTraceServiceRequest (both are `{ resourceSpans }`) → spans. */
export function decodeJsonTraceData(request: JsonTraceData): DecodedSpan[] {
  const spans: DecodedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const resource = jsonKeyValues(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const span of ss.spans ?? []) {
        spans.push({
          name: span.name,
          traceId: jsonId(span.traceId),
          spanId: jsonId(span.spanId),
          parentSpanId: jsonId(span.parentSpanId),
          kind: Number(span.kind ?? 0),
          startTimeUnixNano: BigInt(span.startTimeUnixNano ?? 0),
          endTimeUnixNano: BigInt(span.endTimeUnixNano ?? 0),
          attributes: jsonKeyValues(span.attributes),
          events: (span.events ?? []).map((event) => ({
            name: event.name,
            attributes: jsonKeyValues(event.attributes),
          })),
          status: { code: Number(span.status?.code ?? 0), message: span.status?.message ?? '' },
          resource,
          scope: ss.scope?.name ?? '',
        });
      }
    }
  }
  return spans;
}
