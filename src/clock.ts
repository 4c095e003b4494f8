/**
 * One high-resolution clock for the start and end of every nemo-lens span.
 *
 * Left to itself, the SDK stamps a span's start with `Date.now()` (whole milliseconds) and
 * its end as start + a `performance.now()` duration. Two clocks, one of them truncated: a
 * child that starts 0.3 ms after its parent can get an earlier start, and its end can land
 * after the parent's (34 of 300 nested spans in one check; Jaeger flags such spans with
 * clock-skew warnings). Stamping both ends here, from `performance.timeOrigin +
 * performance.now()` (monotonic, sub-microsecond), nests every child inside its parent.
 * Both SDK lines (2.x, 3.x) keep an `HrTime` they are given as it is.
 *
 * Only on the enabled path: a disabled site never reads the clock.
 */
import type { HrTime } from '@opentelemetry/api';

const ORIGIN_MS = performance.timeOrigin;
const ORIGIN_SECONDS = Math.floor(ORIGIN_MS / 1000);
/** The origin's sub-second part in nanoseconds, rounded once so every reading shares it. */
const ORIGIN_NANOS = Math.round((ORIGIN_MS - ORIGIN_SECONDS * 1000) * 1e6);

/** Now, as `[seconds, nanoseconds]` since the epoch; never goes backwards. */
export function hrNow(): HrTime {
  const elapsed = performance.now();
  const seconds = Math.floor(elapsed / 1000);
  let nanos = ORIGIN_NANOS + Math.round((elapsed - seconds * 1000) * 1e6);
  let wholeSeconds = ORIGIN_SECONDS + seconds;
  if (nanos >= 1e9) {
    nanos -= 1e9;
    wholeSeconds += 1;
  }
  return [wholeSeconds, nanos];
}
