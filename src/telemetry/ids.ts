/**
 * Trace and span ids from the operating system's CSPRNG.
 *
 * The SDK's default generator uses `Math.random`, which is predictable; ids that are
 * predictable let anyone who sees one id guess others (and collide traces across ranks
 * started at the same instant). `randomFillSync` costs a syscall, so ids are cut from a
 * pooled buffer refilled 4 KiB at a time (256 trace ids), which keeps the cost per span low.
 */
import { randomFillSync } from 'node:crypto';
import type { IdGenerator } from '@opentelemetry/sdk-trace';

const POOL_BYTES = 4096;

export class CryptoIdGenerator implements IdGenerator {
  private readonly pool = Buffer.allocUnsafe(POOL_BYTES);
  private offset = POOL_BYTES;

  generateTraceId(): string {
    return this.take(16);
  }

  generateSpanId(): string {
    return this.take(8);
  }

  /** `bytes` random bytes as lowercase hex; never all zero (an all-zero id is invalid in W3C and OTLP). */
  private take(bytes: number): string {
    for (;;) {
      if (this.offset + bytes > POOL_BYTES) {
        randomFillSync(this.pool);
        this.offset = 0;
      }
      const start = this.offset;
      this.offset += bytes;
      for (let i = start; i < start + bytes; i++) {
        if (this.pool[i] !== 0) return this.pool.toString('hex', start, start + bytes);
      }
    }
  }
}
