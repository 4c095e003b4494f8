/**
 * Call targets V8 must not inline. A gate (managedSpan, a traceFn wrapper) is only as cheap as a
 * field read when V8 inlines it into each call site, and it declines once the gate's own
 * optimized code is large: that code counts against the caller's inlining budget (920 bytes of
 * bytecode on Node 20). Left alone, TurboFan inlines the enabled path (about 900 bytes with the
 * OpenTelemetry calls under it) into managedSpan as soon as some group is enabled, and every
 * disabled call then pays a call frame: `managedSpan(STEP, …)` cost +4.0 ns in bench mode
 * `realistic` (some groups enabled), +0.9 ns out of line; a traceFn wrapper +13 ns, +3.6 ns.
 *
 * TurboFan inlines a call whose target is a constant (a function declaration or a `const` can
 * be folded into one) or that it learned from the call's feedback. A field written twice is no
 * constant, and `holder.fn.call(...)` or `.apply(...)` records only `Function.prototype.call`
 * (`.apply`) as feedback, so the target stays unknown and the call stays a call. Use it for paths that cost
 * far more than a call frame (an enabled span costs microseconds), or that run rarely.
 */
export interface OutOfLine<F> {
  readonly fn: F;
}

export function outOfLine<F>(fn: F): OutOfLine<F> {
  const holder: { fn: F } = { fn: undefined as F };
  holder.fn = fn; // the second write: the field is never constant-folded
  return holder;
}
