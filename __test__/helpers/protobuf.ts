/**
 * A minimal protobuf reader, enough to decode an OTLP ExportTraceServiceRequest in tests
 * without pulling in protobufjs or the exporter's own code (a test that decodes with the
 * encoder's library proves little). Field numbers are those of opentelemetry-proto
 * (trace/v1/trace.proto, common/v1/common.proto, resource/v1/resource.proto).
 */

type Raw = bigint | Buffer;
type Fields = Map<number, Raw[]>;

function readVarint(buffer: Buffer, at: { offset: number }): bigint {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (at.offset >= buffer.length) throw new Error('protobuf: truncated varint');
    const byte = buffer[at.offset++]!;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return result;
    shift += 7n;
  }
}

/** Every field of one message, in order, by number (repeated fields keep all occurrences). */
export function readFields(buffer: Buffer): Fields {
  const fields: Fields = new Map();
  const at = { offset: 0 };
  while (at.offset < buffer.length) {
    const tag = Number(readVarint(buffer, at));
    const field = tag >>> 3;
    let value: Raw;
    switch (tag & 7) {
      case 0:
        value = readVarint(buffer, at);
        break;
      case 1:
        value = buffer.subarray(at.offset, at.offset + 8);
        at.offset += 8;
        break;
      case 2: {
        const length = Number(readVarint(buffer, at));
        value = buffer.subarray(at.offset, at.offset + length);
        at.offset += length;
        break;
      }
      case 5:
        value = buffer.subarray(at.offset, at.offset + 4);
        at.offset += 4;
        break;
      default:
        throw new Error(`protobuf: unsupported wire type ${tag & 7} for field ${field}`);
    }
    if (at.offset > buffer.length) throw new Error('protobuf: truncated message');
    const list = fields.get(field) ?? [];
    list.push(value);
    fields.set(field, list);
  }
  return fields;
}

function bytes(fields: Fields, field: number): Buffer | undefined {
  const value = fields.get(field)?.at(-1);
  return Buffer.isBuffer(value) ? value : undefined;
}

function all(fields: Fields, field: number): Buffer[] {
  return (fields.get(field) ?? []).filter((value): value is Buffer => Buffer.isBuffer(value));
}

function varint(fields: Fields, field: number): bigint | undefined {
  const value = fields.get(field)?.at(-1);
  return typeof value === 'bigint' ? value : undefined;
}

const text = (fields: Fields, field: number) => bytes(fields, field)?.toString('utf8') ?? '';
const hex = (fields: Fields, field: number) => bytes(fields, field)?.toString('hex') ?? '';

/** AnyValue: string 1, bool 2, int 3, double 4, array 5, kvlist 6, bytes 7. */
function anyValue(buffer: Buffer): unknown {
  const fields = readFields(buffer);
  if (fields.has(1)) return text(fields, 1);
  if (fields.has(2)) return varint(fields, 2) === 1n;
  if (fields.has(3)) return Number(BigInt.asIntN(64, varint(fields, 3)!));
  if (fields.has(4)) return bytes(fields, 4)!.readDoubleLE(0);
  if (fields.has(5)) return all(readFields(bytes(fields, 5)!), 1).map(anyValue);
  if (fields.has(6)) return keyValues(all(readFields(bytes(fields, 6)!), 1));
  if (fields.has(7)) return bytes(fields, 7);
  return null;
}

/** Repeated KeyValue (key 1, value 2) as a plain object. */
function keyValues(list: Buffer[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const item of list) {
    const fields = readFields(item);
    const value = bytes(fields, 2);
    result[text(fields, 1)] = value === undefined ? null : anyValue(value);
  }
  return result;
}

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

/** ExportTraceServiceRequest → spans, each carrying its resource's attributes and scope name. */
export function decodeTraceRequest(body: Buffer): DecodedSpan[] {
  const spans: DecodedSpan[] = [];
  for (const resourceSpans of all(readFields(body), 1)) {
    const rs = readFields(resourceSpans);
    const resourceBytes = bytes(rs, 1);
    const resource = resourceBytes ? keyValues(all(readFields(resourceBytes), 1)) : {};
    for (const scopeSpans of all(rs, 2)) {
      const ss = readFields(scopeSpans);
      const scopeBytes = bytes(ss, 1);
      const scope = scopeBytes ? text(readFields(scopeBytes), 1) : '';
      for (const spanBytes of all(ss, 2)) {
        const span = readFields(spanBytes);
        const statusBytes = bytes(span, 15);
        const status = readFields(statusBytes ?? Buffer.alloc(0));
        spans.push({
          traceId: hex(span, 1),
          spanId: hex(span, 2),
          parentSpanId: hex(span, 4),
          name: text(span, 5),
          kind: Number(varint(span, 6) ?? 0n),
          startTimeUnixNano: bytes(span, 7)?.readBigUInt64LE(0) ?? 0n,
          endTimeUnixNano: bytes(span, 8)?.readBigUInt64LE(0) ?? 0n,
          attributes: keyValues(all(span, 9)),
          events: all(span, 11).map((event) => {
            const fields = readFields(event);
            return { name: text(fields, 2), attributes: keyValues(all(fields, 3)) };
          }),
          status: { message: text(status, 2), code: Number(varint(status, 3) ?? 0n) },
          resource,
          scope,
        });
      }
    }
  }
  return spans;
}
