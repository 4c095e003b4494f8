/**
 * The hand-off between the main thread and the export worker: one SharedArrayBuffer ring of
 * length-prefixed UTF-8 frames (one producer, the main thread; one consumer, the worker) and
 * a few Int32 control slots beside it.
 *
 * Why shared memory and not `postMessage`: a `postMessage` of one small span record costs
 * about 2.5 µs on this kind of machine (a structured clone plus a wake-up of the worker),
 * more than the whole enabled span (about 2.1 µs, bench/results); writing the same record
 * into this ring costs a string write and one `Atomics.store`, and wakes nobody. The worker
 * polls the ring on its own timer, so the main thread never pays for a wake-up, and frames
 * written just before the main thread blocks (a busy loop, a stuck native call) still leave.
 * A synchronous flush (`process.exit`, a signal) bumps FLUSH_REQ, notifies, and waits with
 * `Atomics.wait` on FLUSH_ACK, as pino's thread-stream does for logs.
 *
 * The ring wraps: a frame that does not fit before the end goes to offset 0, behind a wrap
 * marker. One byte stays free, so READ === WRITE always means "empty". A full ring (a worker
 * that cannot keep up or has died) drops the frame and counts it in DROPPED; the worker
 * reports the count in its dropped-spans warning.
 */

/** Control slots (Int32 indexes into the header). */
export const WRITE = 0;
export const READ = 1;
/** Bumped by the main thread to ask for everything written so far to be exported. */
export const FLUSH_REQ = 2;
/** Set by the worker to the FLUSH_REQ value it has finished (exported or given up on). */
export const FLUSH_ACK = 3;
/** Frames the main thread dropped because the ring was full. */
export const DROPPED = 4;
/** 1 once the main thread asked for a final drain (shutdown or exit): the worker then stops. */
export const FINAL = 5;
/** Spans the worker could not export by the deadline of its final drain. */
export const LEFT = 6;
const HEADER_SLOTS = 8;
/** Byte offset of a Float64 slot: the deadline of the latest flush request, in ms since the epoch (both threads share the clock). */
const DEADLINE_OFFSET = HEADER_SLOTS * 4;

const WRAP_MARKER = 0xffffffff;

export interface RingBuffers {
  readonly header: SharedArrayBuffer;
  readonly data: SharedArrayBuffer;
}

export function createRing(capacityBytes: number): RingBuffers {
  return { header: new SharedArrayBuffer(DEADLINE_OFFSET + 8), data: new SharedArrayBuffer(capacityBytes) };
}

/**
 * The deadline slot. Written before FLUSH_REQ is bumped with Atomics (which orders it) and
 * read after FLUSH_REQ is loaded with Atomics, so a plain Float64 access is enough.
 */
export function deadlineSlot(buffers: RingBuffers): Float64Array {
  return new Float64Array(buffers.header, DEADLINE_OFFSET, 1);
}

/** The main thread's end: appends frames. */
export class RingWriter {
  readonly header: Int32Array;
  private readonly bytes: Buffer;
  private readonly capacity: number;

  constructor(buffers: RingBuffers) {
    this.header = new Int32Array(buffers.header);
    this.bytes = Buffer.from(buffers.data);
    this.capacity = buffers.data.byteLength;
  }

  /** Append one frame; false (and counted in DROPPED) when the ring has no room for it. */
  write(text: string): boolean {
    // At most 3 bytes per UTF-16 unit: when even that fits before the end, write first and
    // take the length from the write (saves a pass over the text with Buffer.byteLength).
    const write0 = this.header[WRITE]!;
    const read0 = Atomics.load(this.header, READ);
    if (read0 <= write0 && write0 + 4 + 3 * text.length < this.capacity) {
      const written = this.bytes.write(text, write0 + 4, 'utf8');
      this.bytes.writeUInt32LE(written, write0);
      Atomics.store(this.header, WRITE, write0 + 4 + written);
      return true;
    }
    const length = Buffer.byteLength(text, 'utf8');
    const need = 4 + length;
    const read = Atomics.load(this.header, READ);
    const write = this.header[WRITE]!;
    let at = write;
    let next: number;
    if (read > write) {
      if (read - write - 1 < need) return this.drop();
      next = write + need;
    } else if (write + need < this.capacity || (write + need === this.capacity && read !== 0)) {
      next = write + need === this.capacity ? 0 : write + need;
    } else {
      // Wrap: the frame goes to offset 0, which must stay short of READ.
      if (read - 1 < need) return this.drop();
      if (this.capacity - write >= 4) this.bytes.writeUInt32LE(WRAP_MARKER, write);
      at = 0;
      next = need;
    }
    this.bytes.writeUInt32LE(length, at);
    this.bytes.write(text, at + 4, length, 'utf8');
    // The store publishes the bytes above to the worker's Atomics.load of WRITE.
    Atomics.store(this.header, WRITE, next);
    return true;
  }

  private drop(): false {
    Atomics.add(this.header, DROPPED, 1);
    return false;
  }
}

/** The worker's end: takes every complete frame written so far. */
export class RingReader {
  readonly header: Int32Array;
  private readonly bytes: Buffer;
  private readonly capacity: number;

  constructor(buffers: RingBuffers) {
    this.header = new Int32Array(buffers.header);
    this.bytes = Buffer.from(buffers.data);
    this.capacity = buffers.data.byteLength;
  }

  /** Calls `take` with each frame's text, in order; returns how many frames were read. */
  drain(take: (text: string) => void): number {
    const write = Atomics.load(this.header, WRITE);
    let read = this.header[READ]!;
    let count = 0;
    while (read !== write) {
      if (this.capacity - read < 4) {
        read = 0;
        continue;
      }
      const length = this.bytes.readUInt32LE(read);
      if (length === WRAP_MARKER) {
        read = 0;
        continue;
      }
      const text = this.bytes.toString('utf8', read + 4, read + 4 + length);
      read += 4 + length;
      if (read === this.capacity) read = 0;
      count++;
      try {
        take(text);
      } catch {
        // A frame that cannot be decoded is skipped, never allowed to stop the ring.
      }
    }
    Atomics.store(this.header, READ, read);
    return count;
  }
}
