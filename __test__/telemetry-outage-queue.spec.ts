/**
 * The pieces behind the outage guarantees, in process: the hand-off ring (frames in order
 * across wrap-arounds; a full ring drops and counts) and the export queue (bounded in bytes,
 * oldest dropped first and counted once per run, a failed batch retried at the head until it
 * is delivered, a permanent refusal dropped, `drain` bounded by its deadline).
 */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import test from 'ava';

import { ExportQueue, isPermanent } from '../src/telemetry/export-worker/export-queue';
import { createRing, DROPPED, RingReader, RingWriter } from '../src/telemetry/export-worker/ring';

test('the ring hands over every frame in order across many wrap-arounds', (t) => {
  const ring = createRing(1000);
  const writer = new RingWriter(ring);
  const reader = new RingReader(ring);
  const read: string[] = [];
  const written: string[] = [];
  for (let i = 0; i < 2000; i++) {
    // Lengths from 1 to 97 bytes, some multi-byte, so frames end at every offset.
    const text = `${i}:${'é'.repeat(i % 7)}${'x'.repeat((i * 13) % 83)}`;
    t.true(writer.write(text), `frame ${i} fits`);
    written.push(text);
    if (i % 5 === 4) reader.drain((frame) => read.push(frame));
  }
  reader.drain((frame) => read.push(frame));
  t.deepEqual(read, written);
  t.is(Atomics.load(writer.header, DROPPED), 0);
});

test('a full ring drops the frame, counts it, and takes frames again once read', (t) => {
  const ring = createRing(64);
  const writer = new RingWriter(ring);
  const reader = new RingReader(ring);
  t.true(writer.write('a'.repeat(40)));
  t.false(writer.write('b'.repeat(40)), 'no room');
  t.is(Atomics.load(writer.header, DROPPED), 1);
  const read: string[] = [];
  reader.drain((frame) => read.push(frame));
  t.deepEqual(read, ['a'.repeat(40)]);
  t.true(writer.write('c'.repeat(30)), 'room again after the read (wrapping to the start)');
  reader.drain((frame) => read.push(frame));
  t.deepEqual(read, ['a'.repeat(40), 'c'.repeat(30)]);
});

const span = (name: string) => ({ name }) as unknown as ReadableSpan;

/** Answers each export with the next result of `script` (then success), recording what it was sent. */
class ScriptedExporter implements SpanExporter {
  readonly batches: string[][] = [];
  constructor(private readonly script: ExportResult[] = []) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.batches.push(spans.map((s) => s.name));
    const result = this.script.shift() ?? { code: ExportResultCode.SUCCESS };
    setImmediate(() => done(result));
  }
  async shutdown(): Promise<void> {}
}

function queue(exporter: SpanExporter, overrides: Partial<ConstructorParameters<typeof ExportQueue>[1]> = {}) {
  const warnings: Array<{ code: string; message: string }> = [];
  const q = new ExportQueue(exporter, {
    maxBytes: 10_000,
    maxSpans: Number.MAX_SAFE_INTEGER,
    batchSize: 3,
    delayMs: 5,
    attemptTimeoutMs: 1000,
    target: 'the test collector',
    warn: (code, message) => warnings.push({ code, message }),
    random: () => 0.5,
    ...overrides,
  });
  return { q, warnings };
}

const transient = { code: ExportResultCode.FAILED, error: Object.assign(new Error('Service Unavailable'), { code: 503 }) };
const permanent = { code: ExportResultCode.FAILED, error: Object.assign(new Error('Bad Request'), { code: 400 }) };

test('a failed batch stays at the head and is retried until delivered; the recovery is reported once', async (t) => {
  const exporter = new ScriptedExporter([transient, transient, transient]);
  const { q, warnings } = queue(exporter);
  for (const name of ['a', 'b', 'c', 'd']) q.push(span(name), 100);
  t.is(await q.drain(Date.now() + 10_000), 0);
  t.deepEqual(exporter.batches, [['a', 'b', 'c'], ['a', 'b', 'c'], ['a', 'b', 'c'], ['a', 'b', 'c'], ['d']]);
  t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_EXPORT_RECOVERED']);
  t.regex(warnings[0]!.message, /no span was dropped/);
});

test('a permanent refusal drops that batch only, and the recovery report counts it', async (t) => {
  const exporter = new ScriptedExporter([permanent]);
  const { q, warnings } = queue(exporter);
  for (const name of ['a', 'b', 'c', 'd']) q.push(span(name), 100);
  t.is(await q.drain(Date.now() + 10_000), 0);
  t.deepEqual(exporter.batches, [['a', 'b', 'c'], ['d']]);
  t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_EXPORT_RECOVERED']);
  t.regex(warnings[0]!.message, /dropped 3 spans since/);
  t.true(isPermanent(permanent.error) && !isPermanent(transient.error) && !isPermanent(Object.assign(new Error(), { code: 429 })));
});

test('the byte bound drops the oldest spans, one warning per run of drops with the count since when', async (t) => {
  const exporter = new ScriptedExporter(Array.from({ length: 50 }, () => transient));
  const { q, warnings } = queue(exporter, { maxBytes: 1000, delayMs: 60_000, batchSize: 1000 });
  for (let i = 0; i < 25; i++) q.push(span(`s${i}`), 100);
  t.is(q.length, 10, '1000 bytes hold 10 spans of 100');
  t.deepEqual(warnings.map((w) => w.code), ['NEMO_LENS_SPANS_DROPPED']);
  t.regex(warnings[0]!.message, /^nemo-lens: dropped 1 span since \d{4}-\d\d-\d\dT/);
  t.is(q.stop(), 10);
});

test('drain stops at its deadline while the collector keeps failing, and says how many spans were left', async (t) => {
  const exporter = new ScriptedExporter(Array.from({ length: 1000 }, () => transient));
  const { q } = queue(exporter);
  for (const name of ['a', 'b', 'c', 'd']) q.push(span(name), 100);
  const started = Date.now();
  const left = await q.drain(started + 300);
  t.is(left, 4);
  t.true(Date.now() - started < 300 + 1000, 'bounded by the deadline (and at most one attempt beyond it)');
  t.is(q.stop(), 4);
});
