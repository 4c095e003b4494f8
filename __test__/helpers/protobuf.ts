/**
 * Decodes an OTLP ExportTraceServiceRequest (the http/protobuf body) into plain spans, for the
 * test receivers. The wire decoding is protobufjs's, driven by the schema in otlp-trace.proto;
 * this module only maps its objects to one flat shape (DecodedSpan) that the JSON decoder
 * (otlp-json.ts) produces too, so tests assert span by span whatever the protocol.
 *
 * protobufjs is not what the exporters encode with (they write protobuf with
 * @opentelemetry/otlp-transformer's own writer), so a round trip here checks the encoder
 * against an independent decoder and the OTLP field numbers.
 */
import * as path from 'node:path';

import * as protobuf from 'protobufjs';

export interface DecodedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, unknown>;
  status: { code: number; message: string };
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
  resource: Record<string, unknown>;
  scope: string;
}

const root = protobuf.loadSync(path.join(__dirname, 'otlp-trace.proto'));
const ExportTraceServiceRequest = root.lookupType('nemo_lens.test.otlp.ExportTraceServiceRequest');

/** toObject options: 64-bit integers as decimal strings (exact), enums as numbers, bytes as Buffers. */
const AS_OBJECT: protobuf.IConversionOptions = { longs: String, enums: Number, oneofs: true };

interface KeyValue {
  key?: string;
  value?: AnyValue;
}

interface AnyValue {
  /** Which member of the `value` oneof is set (protobufjs's virtual oneof field). */
  value?: 'stringValue' | 'boolValue' | 'intValue' | 'doubleValue' | 'arrayValue' | 'kvlistValue' | 'bytesValue';
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
  bytesValue?: Buffer;
}

interface Span {
  traceId?: Buffer;
  spanId?: Buffer;
  parentSpanId?: Buffer;
  name?: string;
  kind?: number;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  attributes?: KeyValue[];
  events?: Array<{ name?: string; attributes?: KeyValue[] }>;
  status?: { code?: number; message?: string };
}

interface Request {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ scope?: { name?: string }; spans?: Span[] }>;
  }>;
}

function anyValue(value: AnyValue | undefined): unknown {
  switch (value?.value) {
    case 'stringValue':
      return value.stringValue;
    case 'boolValue':
      return value.boolValue;
    case 'intValue':
      return Number(value.intValue);
    case 'doubleValue':
      return value.doubleValue;
    case 'arrayValue':
      return (value.arrayValue?.values ?? []).map(anyValue);
    case 'kvlistValue':
      return keyValues(value.kvlistValue?.values);
    case 'bytesValue':
      return value.bytesValue;
    default:
      return null;
  }
}

function keyValues(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key ?? '', anyValue(value)]));
}

const hex = (bytes: Buffer | undefined) => (bytes ? Buffer.from(bytes).toString('hex') : '');

/** ExportTraceServiceRequest → spans, each carrying its resource's attributes and scope name. Throws on a malformed body. */
export function decodeTraceRequest(body: Uint8Array): DecodedSpan[] {
  const request = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), AS_OBJECT) as Request;
  const spans: DecodedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = keyValues(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      const scope = scopeSpans.scope?.name ?? '';
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          name: span.name ?? '',
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId),
          kind: span.kind ?? 0,
          startTimeUnixNano: BigInt(span.startTimeUnixNano ?? 0),
          endTimeUnixNano: BigInt(span.endTimeUnixNano ?? 0),
          attributes: keyValues(span.attributes),
          events: (span.events ?? []).map((event) => ({ name: event.name ?? '', attributes: keyValues(event.attributes) })),
          status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
          resource,
          scope,
        });
      }
    }
  }
  return spans;
}
