/**
 * nemo-lens gates and disabled sites. Every case registers one namespace, creates the `step`
 * handle before any spec (as a module-level `const STEP = spanGroup('step')` would), then
 * enables and disables `step` once, so both the table key and the handle field have been
 * written at run time and V8 cannot fold them to constants. In mode `mega` the same library
 * functions first see eight other names and handles (strings and handles, managedSpan,
 * isSpanGroupEnabled and traceFn wrappers), as in a process with many instrumented sites.
 */
import { loadNemoLens, type NemoLensModule } from '../lib/package';
import * as common from './types';
import { type CaseContext, type CaseModule, type Prepared } from './types';
import { makeWork, type Work } from './work';

// Local consts: under tsx an imported binding is read through a getter (a megamorphic keyed
// load inside esbuild's interop) on every use, which would be measured as part of the site.
const { GROUP, OTHER_GROUPS, REALISTIC_ENABLED, REALISTIC_GROUPS, REALISTIC_LIBRARIES, SPAN_NAME } = common;

/** Every group the namespace registers; `spare` is enabled whenever `step` is not, so a spec always selects something. */
const ALL_GROUPS = [GROUP, ...OTHER_GROUPS, 'spare'];

interface Fixture {
  readonly nemo: NemoLensModule;
  readonly work: Work;
  readonly do_not_optimize: (value: unknown) => void;
}

function fixture(context: CaseContext, stepEnabled: boolean): Fixture {
  const nemo = loadNemoLens();
  if (context.backend !== undefined && nemo.backend !== context.backend) {
    throw new Error(`expected backend ${context.backend}, loaded ${nemo.backend}`);
  }
  const { SpanRegistry, setSpanGroupSpec, spanGroup } = nemo;
  const work = makeWork();
  if (context.mode === 'realistic') {
    for (const library of REALISTIC_LIBRARIES) SpanRegistry.register(library.namespace, library.groups, library.presets);
    spanGroup(GROUP);
    setSpanGroupSpec(GROUP);
    setSpanGroupSpec([...REALISTIC_ENABLED, ...(stepEnabled ? [GROUP] : [])].join(','));
    polluteRealistically(nemo, work, context.do_not_optimize);
    return { nemo, work, do_not_optimize: context.do_not_optimize };
  }
  SpanRegistry.register('bench', ALL_GROUPS);
  spanGroup(GROUP); // the handle exists before any spec, like a module-level const
  setSpanGroupSpec(GROUP);
  setSpanGroupSpec('spare');
  if (stepEnabled) setSpanGroupSpec(GROUP);
  if (context.mode === 'mega') pollute(nemo, work, context.do_not_optimize);
  return { nemo, work, do_not_optimize: context.do_not_optimize };
}

/**
 * Mode `mega`: eight other names and their handles through every library entry point. The
 * callback stays the measured `work`, so only the group argument varies (distinct callbacks
 * would make the callback call polymorphic too, which costs any wrapper API alike).
 */
function pollute(nemo: NemoLensModule, other: Work, do_not_optimize: (value: unknown) => void): void {
  const { isSpanGroupEnabled, managedSpan, spanGroup, traceFn } = nemo;
  const handles = OTHER_GROUPS.map((name) => spanGroup(name));
  const tracedByName = OTHER_GROUPS.map((name) => traceFn(name, SPAN_NAME)(other));
  const tracedByHandle = handles.map((handle) => traceFn(handle, SPAN_NAME)(other));
  let sink = 0;
  for (let i = 0; i < 20_000; i++) {
    const k = i & 7;
    const name = OTHER_GROUPS[k]!;
    const handle = handles[k]!;
    if (isSpanGroupEnabled(name)) sink++;
    if (isSpanGroupEnabled(handle)) sink++;
    sink ^= managedSpan(name, SPAN_NAME, other);
    sink ^= managedSpan(handle, SPAN_NAME, other);
    sink ^= tracedByName[k]!();
    sink ^= tracedByHandle[k]!();
  }
  do_not_optimize(sink);
}

/**
 * Mode `realistic`: every name of both libraries (the measured `step` included, and the two
 * enabled groups, whose calls run real spans on the API's non-recording tracer) through every
 * entry point: strings and handles, both managedSpan overloads, isSpanGroupEnabled and traceFn
 * wrappers made from strings and from handles.
 */
function polluteRealistically(nemo: NemoLensModule, other: Work, do_not_optimize: (value: unknown) => void): void {
  const { isSpanGroupEnabled, managedSpan, spanGroup, traceFn } = nemo;
  const names = REALISTIC_GROUPS;
  const handles = names.map((name) => spanGroup(name));
  const tracedByName = names.map((name) => traceFn(name, SPAN_NAME)(other));
  const tracedByHandle = handles.map((handle) => traceFn(handle, SPAN_NAME)(other));
  const options = { attributes: { 'bench.case': 'realistic' } };
  let sink = 0;
  for (let i = 0; i < 20_000; i++) {
    const k = i % names.length;
    const name = names[k]!;
    const handle = handles[k]!;
    if (isSpanGroupEnabled(name)) sink++;
    if (isSpanGroupEnabled(handle)) sink++;
    if (handle.enabled) sink++;
    sink ^= managedSpan(name, SPAN_NAME, other);
    sink ^= managedSpan(handle, SPAN_NAME, other);
    sink ^= managedSpan(name, SPAN_NAME, options, other);
    sink ^= managedSpan(handle, SPAN_NAME, options, other);
    sink ^= tracedByName[k]!();
    sink ^= tracedByHandle[k]!();
  }
  do_not_optimize(sink);
}

function expectDisabled(nemo: NemoLensModule): void {
  if (nemo.isSpanGroupEnabled(GROUP) || nemo.spanGroup(GROUP).enabled) throw new Error(`"${GROUP}" should be disabled`);
}

/** A disabled site must hand `undefined` to its callback: no span. Checks run after measuring (a second callback would change the feedback). */
function expectNoSpan(site: (fn: (span: unknown) => unknown) => unknown): void {
  if (site((span) => span) !== undefined) throw new Error('a disabled site passed a span');
}

const MANAGED_OPTIONS = { attributes: { 'bench.case': 'options' } };

export const cases: CaseModule['cases'] = {
  /** `isSpanGroupEnabled('step')` while `step` is enabled (answers true). */
  'is-hit'(context): Prepared {
    const { nemo, work, do_not_optimize } = fixture(context, true);
    const { isSpanGroupEnabled } = nemo;
    return {
      fn: () => do_not_optimize(work(isSpanGroupEnabled(GROUP))),
      check: () => {
        if (!isSpanGroupEnabled(GROUP)) throw new Error('is-hit: expected true');
      },
    };
  },

  /** `isSpanGroupEnabled('step')` while `step` is registered but disabled (answers false). */
  'is-miss'(context): Prepared {
    const { nemo, work, do_not_optimize } = fixture(context, false);
    const { isSpanGroupEnabled } = nemo;
    return { fn: () => do_not_optimize(work(isSpanGroupEnabled(GROUP))), check: () => expectDisabled(nemo) };
  },

  /** `STEP.enabled` on a gate handle (disabled). */
  handle(context): Prepared {
    const { nemo, work, do_not_optimize } = fixture(context, false);
    const STEP = nemo.spanGroup(GROUP);
    return { fn: () => do_not_optimize(work(STEP.enabled)), check: () => expectDisabled(nemo) };
  },

  /** Disabled `managedSpan('step', name, fn)`. */
  'managed-string'(context): Prepared {
    const { nemo, work, do_not_optimize } = fixture(context, false);
    const { managedSpan } = nemo;
    return {
      fn: () => do_not_optimize(managedSpan(GROUP, SPAN_NAME, work)),
      check: () => {
        expectDisabled(nemo);
        expectNoSpan((fn) => managedSpan(GROUP, SPAN_NAME, fn));
      },
    };
  },

  /** Disabled `managedSpan(STEP, name, fn)` with a gate handle. */
  'managed-handle'(context): Prepared {
    const { nemo, work, do_not_optimize } = fixture(context, false);
    const { managedSpan } = nemo;
    const STEP = nemo.spanGroup(GROUP);
    return {
      fn: () => do_not_optimize(managedSpan(STEP, SPAN_NAME, work)),
      check: () => {
        expectDisabled(nemo);
        expectNoSpan((fn) => managedSpan(STEP, SPAN_NAME, fn));
      },
    };
  },

  /** Disabled `managedSpan('step', name, options, fn)`: the four-argument overload. */
  'managed-options'(context): Prepared {
    const { nemo, work, do_not_optimize } = fixture(context, false);
    const { managedSpan } = nemo;
    return {
      fn: () => do_not_optimize(managedSpan(GROUP, SPAN_NAME, MANAGED_OPTIONS, work)),
      check: () => {
        expectDisabled(nemo);
        expectNoSpan((fn) => managedSpan(GROUP, SPAN_NAME, MANAGED_OPTIONS, fn));
      },
    };
  },

  /**
   * Disabled `nemo.managedSpan('step', ...)` read from the module object at every call, as code
   * compiled by tsc to CommonJS does (`(0, nemo_lens_1.managedSpan)(...)`: an accessor per call).
   */
  'managed-module'(context): Prepared {
    const { nemo, work, do_not_optimize } = fixture(context, false);
    return {
      fn: () => do_not_optimize(nemo.managedSpan(GROUP, SPAN_NAME, work)),
      check: () => expectDisabled(nemo),
    };
  },

  /** A disabled `traceFn('step', name)(fn)` wrapper. */
  tracefn(context): Prepared {
    const { nemo, work, do_not_optimize } = fixture(context, false);
    const traced = nemo.traceFn(GROUP, SPAN_NAME)(work);
    return {
      fn: () => do_not_optimize(traced(undefined)),
      check: () => {
        expectDisabled(nemo);
        expectNoSpan((fn) => nemo.traceFn(GROUP, SPAN_NAME)(fn)(undefined));
      },
    };
  },

  /** A disabled `traceFn(STEP, name)(fn)` wrapper with a gate handle. */
  'tracefn-handle'(context): Prepared {
    const { nemo, work, do_not_optimize } = fixture(context, false);
    const traced = nemo.traceFn(nemo.spanGroup(GROUP), SPAN_NAME)(work);
    return { fn: () => do_not_optimize(traced(undefined)), check: () => expectDisabled(nemo) };
  },
};
