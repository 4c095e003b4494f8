/** Bounding promises that may never settle (a hung collector, an exporter that never calls back). */

const MAX_TIMER_MS = 2 ** 31 - 1;

/** Resolves `'done'` when `promise` settles (either way) or `'timeout'` after `ms`, whichever is first. */
export function settleWithin(promise: Promise<unknown>, ms: number): Promise<'done' | 'timeout'> {
  const settled = promise.then(
    () => 'done' as const,
    () => 'done' as const,
  );
  // setTimeout fires at once for delays beyond 2^31-1 ms (about 24.8 days): treat those as "no bound".
  if (ms > MAX_TIMER_MS) return settled;
  return new Promise((resolve) => {
    // Unref'd: a pending shutdown must not keep an otherwise finished process alive.
    const timer = setTimeout(() => resolve('timeout'), ms);
    timer.unref();
    void settled.then((outcome) => {
      clearTimeout(timer);
      resolve(outcome);
    });
  });
}
