/**
 * A stand-in OTLP/HTTP collector for tests: a node:http server on an ephemeral port that
 * records each request to /v1/traces and decodes it (protobuf or JSON) into one shape, so
 * tests can assert span by span whatever the protocol.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeTraceRequest, type DecodedSpan } from './protobuf';

export type ReceiverMode = 'accept' | 'refuse' | 'hang';

export interface ReceivedRequest {
  readonly path: string;
  readonly contentType: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly spans: DecodedSpan[];
}

export interface OtlpReceiver {
  /** Base URL, e.g. `http://127.0.0.1:43817` (exporters append /v1/traces). */
  readonly url: string;
  readonly requests: ReceivedRequest[];
  /** Every span received so far, across requests. */
  spans(): DecodedSpan[];
  mode: ReceiverMode;
  close(): Promise<void>;
}

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

/** OTLP/JSON ExportTraceServiceRequest → the same shape as the protobuf decoder's. */
export function decodeJsonTraceRequest(body: Buffer): DecodedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as { resourceSpans?: JsonResourceSpans[] };
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

export async function startOtlpReceiver(mode: ReceiverMode = 'accept'): Promise<OtlpReceiver> {
  const requests: ReceivedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (receiver.mode === 'hang') {
        hanging.add(response);
        return;
      }
      if (receiver.mode === 'refuse') {
        response.writeHead(400, { 'content-type': 'text/plain' }).end('refused by the test receiver');
        return;
      }
      const body = Buffer.concat(chunks);
      const contentType = String(request.headers['content-type'] ?? '');
      const spans = contentType.includes('json') ? decodeJsonTraceRequest(body) : decodeTraceRequest(body);
      requests.push({ path: request.url ?? '', contentType, headers: request.headers, spans });
      // An empty ExportTraceServiceResponse: {} in JSON, zero bytes in protobuf.
      response.writeHead(200, { 'content-type': contentType.includes('json') ? 'application/json' : 'application/x-protobuf' });
      response.end(contentType.includes('json') ? '{}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: OtlpReceiver = {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () => requests.flatMap((request) => request.spans),
    mode,
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}
