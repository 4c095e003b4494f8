/**
 * Enabled spans: nemo-lens `managedSpan` against a hand-written `tracer.startActiveSpan` on the
 * same SDK (Node tracer provider, AlwaysOn, BatchSpanProcessor into an exporter that drops
 * everything). Each call of the measured function makes 256 spans and then yields to the event
 * loop, so the batch processor can export (a synchronous loop would fill its queue and measure
 * the drop path instead); both sides pay the same yield.
 */
import * as otel from '@opentelemetry/api';
import { startCollector } from '../../__test__/helpers/collector';
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

/**
 * Candidate enabled paths (not shipped): a copy of managedSpan's enabled path as of this
 * commit, the same reading `context.active()` once, and that plus one frozen attributes object
 * per group (the SDK copies attributes into the span, so sharing one is safe). All take the
 * tracer from the options, as `managed-tracer` does.
 */
type Body = (span: otel.Span | undefined) => number;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as PromiseLike<unknown>).then === 'function';
}

function endQuietly(span: otel.Span): void {
  try {
    span.end();
  } catch {
    // as src/span.ts
  }
}

function finish(span: otel.Span, run: () => number): number {
  let result: number;
  try {
    result = run();
  } catch (error) {
    endQuietly(span);
    throw error;
  }
  if (!isThenable(result)) endQuietly(span);
  return result;
}

type Variant = (tracer: otel.Tracer, options: { readonly tracer: otel.Tracer }, group: string, name: string, fn: Body) => number;

const VARIANTS: Readonly<Record<string, Variant>> = {
  /** managedSpan's enabled path today: fresh options and attributes, context.active() twice. */
  'copy-current'(tracer, options, group, name, fn) {
    const attributes: otel.Attributes = { ...(options as { attributes?: otel.Attributes }).attributes };
    attributes['nemo.span_group'] = group;
    const span = tracer.startSpan(name, { attributes, kind: undefined, links: undefined }, otel.context.active());
    return finish(span, () => otel.context.with(otel.trace.setSpan(otel.context.active(), span), fn, undefined, span));
  },
  /** The same, reading the active context once. */
  'copy-one-active'(tracer, options, group, name, fn) {
    const attributes: otel.Attributes = { ...(options as { attributes?: otel.Attributes }).attributes };
    attributes['nemo.span_group'] = group;
    const parent = otel.context.active();
    const span = tracer.startSpan(name, { attributes, kind: undefined, links: undefined }, parent);
    return finish(span, () => otel.context.with(otel.trace.setSpan(parent, span), fn, undefined, span));
  },
  /** Context read once, and one frozen `{ attributes }` options object per group. */
  'copy-lean'(tracer, _options, group, name, fn) {
    let spanOptions = LEAN_OPTIONS.get(group);
    if (spanOptions === undefined) {
      spanOptions = Object.freeze({ attributes: Object.freeze({ 'nemo.span_group': group }) });
      LEAN_OPTIONS.set(group, spanOptions);
    }
    const parent = otel.context.active();
    const span = tracer.startSpan(name, spanOptions, parent);
    return finish(span, () => otel.context.with(otel.trace.setSpan(parent, span), fn, undefined, span));
  },
};

const LEAN_OPTIONS = new Map<string, otel.SpanOptions>();

function variantCase(variant: string) {
  return async (context: CaseContext): Promise<Prepared> => {
    const state = await sdk();
    const work = makeWork();
    const run = VARIANTS[variant]!;
    const { tracer } = state;
    const options = { tracer };
    return batched(() => run(tracer, options, GROUP, SPAN_NAME, work), state, context.do_not_optimize);
  };
}

/**
 * The whole nemo-lens pipeline, as `setupTelemetry` builds it, exporting OTLP http/protobuf to
 * a collector in another process (__test__/helpers/collector-process.ts): through the export
 * worker (the hand-off: a start and an end record into shared memory), or, with
 * NEMO_LENS_EXPORT_WORKER=false, through the main-thread BatchSpanProcessor as before the worker
 * (protobuf encoding and HTTP on the main thread, in the event-loop turns the measured function
 * yields). Both pay the same OpenSpanTracker. The check reports on stderr how many spans the
 * collector accepted: a pipeline that drops (a full queue or ring) is cheaper than one that
 * delivers, so the share delivered belongs next to the figure.
 */
async function pipeline(context: CaseContext, worker: boolean): Promise<Prepared> {
  const collector = await startCollector('ok');
  process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] = collector.url;
  process.env['NEMO_LENS_EXPORT_WORKER'] = String(worker);
  const nemo = loadNemoLens();
  if (context.backend !== undefined && nemo.backend !== context.backend) throw new Error(`expected backend ${context.backend}`);
  const { SpanRegistry, managedSpan, setupTelemetry } = nemo;
  SpanRegistry.register('bench', [GROUP]);
  const handle = setupTelemetry({ enabled: true, exporter: 'otlp', spanGroups: GROUP, serviceName: 'bench' }, { exitHooks: false });
  const work = makeWork();
  const site = () => managedSpan(GROUP, SPAN_NAME, work);
  let calls = 0;
  const { do_not_optimize } = context;
  return {
    fn: async () => {
      for (let i = 0; i < SPANS_PER_CALL; i++) do_not_optimize(site());
      calls += SPANS_PER_CALL;
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
    opsPerCall: SPANS_PER_CALL,
    check: async () => {
      await handle.shutdown(60_000);
      const { accepted } = await collector.stats();
      await collector.kill();
      process.stderr.write(`bench: enabled:pipeline-${worker ? 'worker' : 'main'}: the collector accepted ${accepted} of ${calls} spans (${((100 * accepted) / calls).toFixed(1)}%)\n`);
    },
  };
}

export const cases: CaseModule['cases'] = {
  /** managedSpan through setupTelemetry's pipeline: the export worker, OTLP to a collector process. */
  'pipeline-worker': (context) => pipeline(context, true),
  /** The same pipeline on the main thread (NEMO_LENS_EXPORT_WORKER=false): the path before the worker. */
  'pipeline-main': (context) => pipeline(context, false),

  'copy-current': variantCase('copy-current'),
  'copy-one-active': variantCase('copy-one-active'),
  'copy-lean': variantCase('copy-lean'),

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
