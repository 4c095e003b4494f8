/**
 * A misbehaving OTLP/HTTP collector in its own process, for faults-collector.spec.ts (started
 * through helpers/collector.ts). It listens on an ephemeral port, prints
 * `{"port": N}` on stdout, then serves /v1/traces according to its mode, which the parent can
 * change at any time by writing `mode <name> [delayMs]` on stdin; `stats` prints
 * `{"requests": N, "spans": M, "accepted": A}` (spans counted from the protobuf body, whatever
 * the answer; `accepted`: in requests answered 200);
 * `spans` prints `{"spans": [...]}`, every span it answered 200 for, decoded (times as strings).
 *
 * Modes: ok (200, empty response), hang (accept, read, never answer), 500, 400, 503, slow
 * (200 after delayMs), reset (destroy the connection without answering).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as readline from 'node:readline';
import type { Socket } from 'node:net';

import { decodeTraceRequest, type DecodedSpan } from './protobuf';

export type CollectorMode = 'ok' | 'hang' | '500' | '400' | '503' | 'slow' | 'reset';

let mode = (process.argv[2] ?? 'ok') as CollectorMode;
let delayMs = Number(process.argv[3] ?? 0);
let requests = 0;
let spans = 0;
const accepted: DecodedSpan[] = [];
let acceptedCount = 0;
const held = new Set<Socket>();

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    requests++;
    let decoded: DecodedSpan[] = [];
    try {
      decoded = decodeTraceRequest(Buffer.concat(chunks));
      spans += decoded.length;
    } catch {
      // Counting is best effort; the answer below is what the test is about.
    }
    switch (mode) {
      case 'ok':
        for (const span of decoded) accepted.push(span);
        acceptedCount += decoded.length;
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        return;
      case 'hang':
        held.add(request.socket);
        return;
      case '500':
      case '400':
      case '503':
        response.writeHead(Number(mode), { 'content-type': 'text/plain' }).end(`collector says ${mode}`);
        return;
      case 'slow':
        setTimeout(() => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(), delayMs);
        return;
      case 'reset':
        request.socket.destroy();
        return;
    }
  });
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});

const control = readline.createInterface({ input: process.stdin });
// The parent went away (or closed stdin): stop, wherever the sockets are.
control.on('close', () => process.exit(0));
control.on('line', (line) => {
  const [command, value, delay] = line.trim().split(/\s+/);
  if (command === 'mode') {
    mode = value as CollectorMode;
    delayMs = Number(delay ?? 0);
    process.stdout.write(`${JSON.stringify({ mode })}\n`);
  } else if (command === 'stats') {
    process.stdout.write(`${JSON.stringify({ requests, spans, accepted: acceptedCount })}\n`);
  } else if (command === 'spans') {
    process.stdout.write(`${JSON.stringify({ spans: accepted }, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value))}\n`);
  }
});
