/**
 * Spans still open at shutdown are ended and marked, not lost.
 *
 * A run that is stopped mid-epoch (a timeout, a crash handler calling shutdown) still has
 * its job and epoch spans open; the BatchSpanProcessor only ever sees ended spans, so
 * without this they would vanish, and with them the context of everything that did finish.
 * This processor keeps the open spans in a Set (added on start, removed on end; it must be
 * the first processor so the spans it ends still reach the exporting one) and, at shutdown,
 * ends each with `nemo.span.truncated = true`.
 */
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

export const TRUNCATED_ATTRIBUTE = 'nemo.span.truncated';

export class OpenSpanTracker implements SpanProcessor {
  private readonly open = new Set<Span | ReadableSpan>();

  onStart(span: Span, _parentContext: Context): void {
    this.open.add(span);
  }

  onEnd(span: ReadableSpan): void {
    this.open.delete(span);
  }

  /** How many spans are open now. */
  get size(): number {
    return this.open.size;
  }

  /** End every open span, marked truncated; returns how many there were. */
  endAll(): number {
    const spans = [...this.open] as Span[];
    this.open.clear();
    for (const span of spans) {
      try {
        span.setAttribute(TRUNCATED_ATTRIBUTE, true);
        span.end();
      } catch {
        // One misbehaving span must not keep the others (or the shutdown) from finishing.
      }
    }
    return spans.length;
  }

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {}
}
