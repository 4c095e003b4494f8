/**
 * Enabled spans: nemo-lens `managedSpan` against a hand-written `tracer.startActiveSpan` on the
 * same SDK (Node tracer provider, AlwaysOn, BatchSpanProcessor into an exporter that drops
 * everything). Each call of the measured function makes 256 spans and then yields to the event
 * loop, so the batch processor can export (a synchronous loop would fill its queue and measure
 * the drop path instead); both sides pay the same yield.
 */
import * as otel from '@opentelemetry/api';
import { loadNemoLens } from '../lib/package';
import * as common from './types';
import { type CaseContext, type CaseModule, type Prepared } from './types';
import { makeWork, type Work } from './work';

// Local consts: under tsx an imported binding is read through a getter (a megamorphic keyed
// load inside esbuild's interop) on every use, which would be measured as part of the site.
const { GROUP, SPAN_NAME } = common;

const SPANS_PER_CALL = 256;

interface Sdk {
  readonly tracer: otel.Tracer;
  readonly exported: () => number;
  readonly flush: () => Promise<void>;
}

async function sdk(): Promise<Sdk> {
  const { AlwaysOnSampler, BatchSpanProcessor, NodeTracerProvider } = await import('@opentelemetry/sdk-trace-node');
  let exported = 0;
  const exporter = {
    export(spans: unknown[], done: (result: { code: number }) => void): void {
      exported += spans.length;
      done({ code: 0 });
    },
    shutdown: async (): Promise<void> => undefined,
    forceFlush: async (): Promise<void> => undefined,
  };
  const provider = new NodeTracerProvider({ sampler: new AlwaysOnSampler(), spanProcessors: [new BatchSpanProcessor(exporter)] });
  provider.register();
  return { tracer: otel.trace.getTracer('bench'), exported: () => exported, flush: () => provider.forceFlush() };
}

/** `site()` 256 times, then a macrotask turn; the check proves no span was dropped. */
function batched(site: () => unknown, state: Sdk, do_not_optimize: (value: unknown) => void): Prepared {
  let calls = 0;
  return {
    fn: async () => {
      for (let i = 0; i < SPANS_PER_CALL; i++) do_not_optimize(site());
      calls += SPANS_PER_CALL;
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
    opsPerCall: SPANS_PER_CALL,
    check: async () => {
      await state.flush();
      if (state.exported() < calls) throw new Error(`spans dropped: ${calls} made, ${state.exported()} exported`);
    },
  };
}

async function ours(context: CaseContext, viaOption: boolean): Promise<Prepared> {
  const state = await sdk();
  const nemo = loadNemoLens();
  if (context.backend !== undefined && nemo.backend !== context.backend) throw new Error(`expected backend ${context.backend}`);
  const { SpanRegistry, managedSpan, setSpanGroupSpec } = nemo;
  SpanRegistry.register('bench', [GROUP]);
  setSpanGroupSpec(GROUP);
  const work = makeWork();
  const options = { tracer: state.tracer };
  const site = viaOption ? () => managedSpan(GROUP, SPAN_NAME, options, work) : () => managedSpan(GROUP, SPAN_NAME, work);
  return batched(site, state, context.do_not_optimize);
}

function raw(state: Sdk, work: Work, attributes: otel.Attributes | undefined): () => unknown {
  const { tracer } = state;
  const body = (span: otel.Span): number => {
    try {
      return work(span);
    } finally {
      span.end();
    }
  };
  if (attributes === undefined) return () => tracer.startActiveSpan(SPAN_NAME, body);
  const options = { attributes };
  return () => tracer.startActiveSpan(SPAN_NAME, options, body);
}

export const cases: CaseModule['cases'] = {
  /** Enabled `managedSpan('step', name, { tracer }, fn)`. */
  'managed-tracer': (context) => ours(context, true),

  /** Enabled `managedSpan('step', name, fn)` on the global tracer provider (tracer looked up per span). */
  'managed-global': (context) => ours(context, false),

  /** `tracer.startActiveSpan(name, fn)` with try/finally `span.end()`. */
  async raw(context): Promise<Prepared> {
    const state = await sdk();
    const work = makeWork();
    return batched(raw(state, work, undefined), state, context.do_not_optimize);
  },

  /** The same, also setting the one attribute managedSpan adds (`nemo.span_group`). */
  async 'raw-attribute'(context): Promise<Prepared> {
    const state = await sdk();
    const work = makeWork();
    return batched(raw(state, work, { 'nemo.span_group': GROUP }), state, context.do_not_optimize);
  },
};
