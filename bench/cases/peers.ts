/**
 * What users would pick instead of nemo-lens to switch instrumentation off, each disabled and
 * written the idiomatic way around the same work: a Set of enabled names (as a bare check and
 * as a managedSpan-like wrapper), a `debug` logger, the OpenTelemetry API with no SDK, the
 * SDK with the AlwaysOff sampler, and a `diagnostics_channel` with no subscriber.
 */
import * as diagnosticsChannel from 'node:diagnostics_channel';

import * as otel from '@opentelemetry/api';
import createDebug from 'debug';
import * as common from './types';
import { type CaseContext, type CaseModule, type Prepared } from './types';
import { makeWork, type Work } from './work';

// Local consts: under tsx an imported binding is read through a getter (a megamorphic keyed
// load inside esbuild's interop) on every use, which would be measured as part of the site.
const { GROUP, OTHER_GROUPS, REALISTIC_ENABLED, REALISTIC_GROUPS, SPAN_NAME } = common;

type Span = otel.Span;

/** `fn` inside an active span, ended in `finally`: the usual hand-written OpenTelemetry site. */
function activeBody(work: Work): (span: Span) => number {
  return (span) => {
    try {
      return work(span);
    } finally {
      span.end();
    }
  };
}

/** The naive alternative: a Set of enabled names and a wrapper shaped like managedSpan. */
function naiveGate(context: CaseContext, work: Work) {
  const enabled = new Set<string>(context.mode === 'realistic' ? REALISTIC_ENABLED : ['spare']);
  const tracer = otel.trace.getTracer('naive');
  function naiveManagedSpan<T>(group: string, name: string, fn: (span: Span | undefined) => T): T {
    if (!enabled.has(group)) return fn(undefined);
    return tracer.startActiveSpan(name, (span) => {
      try {
        return fn(span);
      } finally {
        span.end();
      }
    });
  }
  if (context.mode === 'mega') {
    const { do_not_optimize } = context;
    let sink = 0;
    for (let i = 0; i < 20_000; i++) {
      const name = OTHER_GROUPS[i & 7]!;
      if (enabled.has(name)) sink++;
      sink ^= naiveManagedSpan(name, SPAN_NAME, work);
    }
    do_not_optimize(sink);
  }
  if (context.mode === 'realistic') {
    // Every name of both libraries, the enabled ones running real (non-recording) spans.
    const { do_not_optimize } = context;
    let sink = 0;
    for (let i = 0; i < 20_000; i++) {
      const name = REALISTIC_GROUPS[i % REALISTIC_GROUPS.length]!;
      if (enabled.has(name)) sink++;
      sink ^= naiveManagedSpan(name, SPAN_NAME, work);
    }
    do_not_optimize(sink);
  }
  return { enabled, naiveManagedSpan };
}

export const cases: CaseModule['cases'] = {
  /** `if (enabled.has('step'))` with a Set of enabled names. */
  'set-has'(context): Prepared {
    const { do_not_optimize } = context;
    const work = makeWork();
    const { enabled } = naiveGate(context, work);
    return { fn: () => do_not_optimize(work(enabled.has(GROUP))) };
  },

  /** A managedSpan-like wrapper over `Set.has`: the "naive Set.has wrapper" of the targets. */
  'set-wrapper'(context): Prepared {
    const { do_not_optimize } = context;
    const work = makeWork();
    const { naiveManagedSpan } = naiveGate(context, work);
    return { fn: () => do_not_optimize(naiveManagedSpan(GROUP, SPAN_NAME, work)) };
  },

  /** A disabled `debug` logger (DEBUG unset), called once per site. */
  debug(context): Prepared {
    const { do_not_optimize } = context;
    if (process.env['DEBUG']) throw new Error('DEBUG must be unset for the disabled-logger case');
    const work = makeWork();
    const log = createDebug('nemo:step');
    return {
      fn: () => {
        log(SPAN_NAME);
        return do_not_optimize(work(undefined));
      },
      check: () => {
        if (log.enabled) throw new Error('debug logger is enabled');
      },
    };
  },

  /** `tracer.startActiveSpan` on the OpenTelemetry API with no SDK registered (non-recording spans). */
  'otel-api'(context): Prepared {
    const { do_not_optimize } = context;
    const work = makeWork();
    const tracer = otel.trace.getTracer('bench');
    const body = activeBody(work);
    return { fn: () => do_not_optimize(tracer.startActiveSpan(SPAN_NAME, body)) };
  },

  /** `tracer.startActiveSpan` on the Node SDK with the AlwaysOff sampler (ids and a context switch per call). */
  async 'otel-sdk-off'(context): Promise<Prepared> {
    const { do_not_optimize } = context;
    const { AlwaysOffSampler, NodeTracerProvider } = await import('@opentelemetry/sdk-trace-node');
    const provider = new NodeTracerProvider({ sampler: new AlwaysOffSampler() });
    provider.register();
    const work = makeWork();
    const tracer = otel.trace.getTracer('bench');
    const body = activeBody(work);
    return {
      fn: () => do_not_optimize(tracer.startActiveSpan(SPAN_NAME, body)),
      check: () => {
        const recording = tracer.startActiveSpan(SPAN_NAME, (span) => {
          span.end();
          return span.isRecording();
        });
        if (recording) throw new Error('AlwaysOff sampler recorded a span');
      },
    };
  },

  /** `if (channel.hasSubscribers)` on a `diagnostics_channel` nobody subscribed to. */
  'dc-has-subscribers'(context): Prepared {
    const { do_not_optimize } = context;
    const work = makeWork();
    const channel = diagnosticsChannel.channel('nemo-lens:bench:step');
    return { fn: () => do_not_optimize(work(channel.hasSubscribers)) };
  },
};
