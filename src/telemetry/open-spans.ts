/**
 * Spans still open are ended and marked, not lost; and the tracker that makes this possible
 * does not keep memory forever.
 *
 * A run that is stopped mid-epoch (a timeout, a crash handler calling shutdown) still has
 * its job and epoch spans open; the BatchSpanProcessor only ever sees ended spans, so
 * without this they would vanish, and with them the context of everything that did finish.
 * This processor (it must be the first one, so the spans it ends still reach the exporting
 * one) knows every open span and, at shutdown, ends each innermost first (grandchild, child,
 * parent, as the Python reference does) with the attribute `nemo.span.truncated = true` and
 * an event `nemo.span.truncated` whose `nemo.span.truncated.reason` says why.
 *
 * Holding every open span strongly until shutdown leaked: 10^5 calls whose promise never
 * settles (an RPC abandoned after a `Promise.race` timeout) grew the heap by 84 MB, while the
 * plain SDK stays flat (it simply loses those spans). So the tracker holds a span strongly
 * only while that costs nothing or can still pay off:
 *   - `young`: spans started since the last sweep (one Map.set/delete per span: the hot path).
 *   - `pending`: spans whose call returned a promise. span.ts tells the tracker which of its
 *     callbacks (the promise's `then` reaction, the "sentinel") will end the span. The span
 *     is held strongly, the sentinel only weakly: once nothing can settle the promise any
 *     more, the garbage collector takes the promise and its reactions, the WeakRef empties,
 *     and the next sweep ends the span as truncated with reason "abandoned" — exported, then
 *     released. Nothing references the sentinel from the span, so this cannot keep it alive.
 *   - `aged`: any other span open across a sweep (a synchronous hang, a span started with
 *     `tracer.startSpan` and held by the host) is held through a WeakRef: whoever can still
 *     end it keeps it alive, and shutdown still truncates it; one that was collected before
 *     it ended (nobody could ever end it) is counted and reported.
 * A per-span FinalizationRegistry was measured first and rejected: register + unregister
 * added 1.2 µs to a 2.1 µs enabled async span on this machine. WeakRefs are only created at a
 * sweep, for the few spans open across it.
 *
 * One warning (`NEMO_LENS_SPANS_ABANDONED`) per tracker says how many spans were abandoned or
 * collected open, at the first sweep that finds any; later ones are exported (or counted) the
 * same way without repeating it. `__test__/telemetry-open-spans.spec.ts` holds this in place.
 */
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import { hrNow } from '../clock';

import { emitWarning } from '../warnings';

export const TRUNCATED_ATTRIBUTE = 'nemo.span.truncated';
export const TRUNCATED_EVENT = 'nemo.span.truncated';
export const TRUNCATED_REASON_ATTRIBUTE = 'nemo.span.truncated.reason';
/** The Python reference's text for spans ended by shutdown. */
export const SHUTDOWN_REASON = 'still open at telemetry shutdown';
export const ABANDONED_REASON = 'abandoned';

/** How often the tracker looks for abandoned spans and ages the others (unref'd timer). */
export const DEFAULT_SWEEP_MS = 1000;

export interface OpenSpanTrackerOptions {
  readonly sweepMs?: number;
}

/** Mark `span` truncated for `reason` and end it; never throws. */
export function truncate(span: Span, reason: string): void {
  try {
    span.setAttribute(TRUNCATED_ATTRIBUTE, true);
    // The clock the span's start came from (clock.ts): ended innermost first, children stay inside parents.
    const now = hrNow();
    span.addEvent(TRUNCATED_EVENT, { [TRUNCATED_REASON_ATTRIBUTE]: reason }, now);
    span.end(now);
  } catch {
    // One misbehaving span must not keep the others (or the shutdown) from finishing.
  }
}

/**
 * `spans` ordered so that every span comes before its ancestors (deepest first, then the
 * latest started first): ending them in this order ends grandchild, child, then parent.
 */
export function innermostFirst(spans: readonly Span[]): Span[] {
  const byId = new Map<string, Span>();
  for (const span of spans) byId.set(span.spanContext().spanId, span);
  const depths = new Map<Span, number>();
  const depth = (span: Span): number => {
    let known = depths.get(span);
    if (known !== undefined) return known;
    known = 0;
    depths.set(span, 0); // a cycle (impossible with real ids) stops here
    const parentId = span.parentSpanContext?.spanId;
    const parent = parentId === undefined ? undefined : byId.get(parentId);
    if (parent !== undefined && parent !== span) known = depth(parent) + 1;
    depths.set(span, known);
    return known;
  };
  const order = new Map(spans.map((span, index) => [span, index]));
  return [...spans].sort((a, b) => depth(b) - depth(a) || order.get(b)! - order.get(a)!);
}

export class OpenSpanTracker implements SpanProcessor {
  /** Started since the last sweep; the value is the sentinel of a pending promise, if any. */
  private young = new Map<Span, object | undefined>();
  /** Open across a sweep and waiting for a promise: the span strong, its sentinel weak. */
  private readonly pending = new Map<Span, WeakRef<object>>();
  /** Open across a sweep, not waiting for a promise: held weakly (see the module comment). */
  private readonly aged = new Set<WeakRef<Span>>();
  private readonly agedIndex = new WeakMap<Span, WeakRef<Span>>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private abandoned = 0;
  private collectedOpen = 0;
  private warned = false;

  constructor(options: OpenSpanTrackerOptions = {}) {
    const sweepMs = options.sweepMs ?? DEFAULT_SWEEP_MS;
    this.timer = setInterval(() => this.sweep(), sweepMs);
    // Looking for abandoned spans must never keep a finished process alive.
    this.timer.unref();
  }

  onStart(span: Span, _parentContext: Context): void {
    this.young.set(span, undefined);
  }

  onEnd(span: ReadableSpan): void {
    const open = span as Span;
    if (this.young.delete(open) || this.pending.delete(open) || this.aged.size === 0) return;
    const ref = this.agedIndex.get(open);
    if (ref === undefined) return;
    this.aged.delete(ref);
    this.agedIndex.delete(open);
  }

  /**
   * `span`'s call returned a promise; `sentinel` is reachable exactly as long as that promise
   * can still settle (span.ts passes its `then` reaction). Spans of other providers are ignored.
   */
  watchSettlement(span: Span, sentinel: object): void {
    if (this.young.has(span)) {
      this.young.set(span, sentinel);
      return;
    }
    const ref = this.agedIndex.get(span);
    if (ref === undefined || ref.deref() !== span) return;
    this.aged.delete(ref);
    this.agedIndex.delete(span);
    this.pending.set(span, new WeakRef(sentinel));
  }

  /** How many spans are open now (spans collected open since the last sweep included). */
  get size(): number {
    return this.young.size + this.pending.size + this.aged.size;
  }

  /** Every open span that is still alive, in no particular order. */
  openSpans(): Span[] {
    const spans = [...this.young.keys(), ...this.pending.keys()];
    for (const ref of this.aged) {
      const span = ref.deref();
      if (span !== undefined) spans.push(span);
    }
    return spans;
  }

  /**
   * End every open span, innermost first, marked truncated with `reason` (default the
   * shutdown text); returns how many there were. The tracker stops sweeping: this is final.
   */
  endAll(reason: string = SHUTDOWN_REASON): number {
    this.stopSweeping();
    const spans = innermostFirst(this.openSpans());
    this.young.clear();
    this.pending.clear();
    this.aged.clear();
    for (const span of spans) truncate(span, reason);
    return spans.length;
  }

  /**
   * Age what started since the last sweep, end pending spans whose promise was collected,
   * forget collected aged spans, and warn once about either. Runs on the unref'd timer.
   */
  sweep(): void {
    const young = this.young;
    this.young = new Map();
    for (const [span, sentinel] of young) {
      if (sentinel !== undefined) {
        this.pending.set(span, new WeakRef(sentinel));
      } else {
        const ref = new WeakRef(span);
        this.aged.add(ref);
        this.agedIndex.set(span, ref);
      }
    }
    const abandoned: Span[] = [];
    for (const [span, sentinel] of this.pending) {
      if (sentinel.deref() === undefined) abandoned.push(span);
    }
    for (const span of abandoned) this.pending.delete(span);
    for (const span of innermostFirst(abandoned)) truncate(span, ABANDONED_REASON);
    let collected = 0;
    for (const ref of this.aged) {
      if (ref.deref() === undefined) {
        this.aged.delete(ref);
        collected++;
      }
    }
    this.abandoned += abandoned.length;
    this.collectedOpen += collected;
    if (!this.warned && (abandoned.length > 0 || collected > 0)) {
      this.warned = true;
      this.warn(abandoned.length, collected);
    }
  }

  /** Spans ended as abandoned, and spans collected before anything ended them, so far. */
  get counts(): { abandoned: number; collectedOpen: number } {
    return { abandoned: this.abandoned, collectedOpen: this.collectedOpen };
  }

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {
    this.stopSweeping();
  }

  private stopSweeping(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private warn(abandoned: number, collected: number): void {
    const parts: string[] = [];
    if (abandoned > 0) {
      parts.push(
        `${abandoned} span${abandoned === 1 ? ' was' : 's were'} abandoned: the call returned a promise that nothing can settle any more ` +
          `(it was garbage-collected while pending), so each was ended and exported with ${TRUNCATED_ATTRIBUTE} = true and ` +
          `${TRUNCATED_REASON_ATTRIBUTE} = "${ABANDONED_REASON}"`,
      );
    }
    if (collected > 0) {
      parts.push(
        `${collected} span${collected === 1 ? ' was' : 's were'} garbage-collected before anything ended ${collected === 1 ? 'it' : 'them'} ` +
          '(started on the tracer directly and dropped without span.end()), so they could not be exported',
      );
    }
    emitWarning(
      'NEMO_LENS_SPANS_ABANDONED',
      `nemo-lens: ${parts.join('; ')}. Later ones are handled the same way without repeating this warning. ` +
        'Settle or cancel promises you stop waiting for (for example the loser of a Promise.race timeout), and end every span you start.',
    );
  }
}
