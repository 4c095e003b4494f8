/**
 * A stand-in OTLP/HTTP collector for tests: a node:http server on an ephemeral port that
 * records each request to /v1/traces and decodes it (protobuf or JSON) into one shape, so
 * tests can assert span by span whatever the protocol.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJsonTraceRequest } from './otlp-json';
import { decodeTraceRequest, type DecodedSpan } from './protobuf';

export { decodeJsonTraceRequest };

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
