/**
 * References: the bare call every site makes anyway, and a boolean field read (the cheapest
 * gate JavaScript has), plus an allocating control for the memory measurement.
 */
import type { CaseModule } from './types';
import { makeWork } from './work';

export const cases: CaseModule['cases'] = {
  /** The work function called directly: every other site's time is compared with this. */
  bare(context) {
    const { do_not_optimize } = context;
    const work = makeWork();
    return { fn: () => do_not_optimize(work(undefined)) };
  },

  /** `if (FLAGS.step)`: a boolean field of a plain object, written since creation so V8 cannot treat it as a constant. */
  field(context) {
    const { do_not_optimize } = context;
    const work = makeWork();
    const flags = { step: false };
    flags.step = true;
    flags.step = false;
    return {
      fn: () => do_not_optimize(work(flags.step)),
      check: () => {
        if (flags.step !== false) throw new Error('field: expected false');
      },
    };
  },

  /** Allocates one small object per call: proves the memory measurement sees allocation. */
  'alloc-control'(context) {
    const { do_not_optimize } = context;
    const work = makeWork();
    return { fn: () => do_not_optimize({ value: work(undefined) }) };
  },
};
