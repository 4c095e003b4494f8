/**
 * W3C trace context across process boundaries.
 *
 *     // HTTP-style carriers (headers, message metadata): lowercase keys
 *     const headers = injectContext();                 // { traceparent: '00-…-01', tracestate?: … }
 *     const ctx = extractContext(request.headers);     // then context.with(ctx, handle)
 *
 *     // Child processes: upper-case environment variables, as the OpenTelemetry
 *     // "environment variables as context propagation carriers" convention names them
 *     spawn('node', ['worker.js'], { env: envWithTraceContext() });   // TRACEPARENT, TRACESTATE
 *     // in the child, an enabled setupTelemetry() continues that trace by default (its
 *     // top-level spans become children of the parent's active span); without setup, or with
 *     // `continueTraceFromEnv: false`, do it explicitly:
 *     context.with(contextFromEnv(), main);
 *
 * These functions use the W3C trace-context propagator directly rather than the global one,
 * so they work the same whether or not a setup registered a propagator (a disabled process
 * between two enabled ones still passes its parent's context on).
 */
import { ROOT_CONTEXT, context as contextApi, type Context, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';
import type { W3CTraceContextPropagator } from '@opentelemetry/core';
import { NemoLensTypeError, describe } from '../errors';

export type CarrierFormat = 'headers' | 'env';

export interface InjectOptions {
  /** The context to propagate; default the active one. */
  readonly context?: Context;
  /** `'headers'` (default): `traceparent`/`tracestate`; `'env'`: `TRACEPARENT`/`TRACESTATE`. */
  readonly format?: CarrierFormat;
}

export interface ExtractOptions {
  /** The context to add the remote span context to; default the active one. */
  readonly context?: Context;
}

type Carrier = Record<string, unknown>;

let w3c: W3CTraceContextPropagator | undefined;

/** Created on first use, so importing nemo-lens does not load @opentelemetry/core. */
function propagator(): W3CTraceContextPropagator {
  if (w3c === undefined) {
    const { W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
    w3c = new W3CTraceContextPropagator();
  }
  return w3c;
}

function keyFor(field: string, format: CarrierFormat): string {
  return format === 'env' ? field.toUpperCase() : field;
}

function setterFor(format: CarrierFormat): TextMapSetter<Carrier> {
  return {
    set(carrier, key, value) {
      carrier[keyFor(key, format)] = value;
    },
  };
}

/** Exact key first, then any case: headers may arrive as `Traceparent`, env carriers as `TRACEPARENT`. */
const anyCaseGetter: TextMapGetter<Carrier> = {
  get(carrier, key) {
    let value = carrier[key];
    if (value === undefined) {
      const wanted = key.toLowerCase();
      const found = Object.keys(carrier).find((candidate) => candidate.toLowerCase() === wanted);
      value = found === undefined ? undefined : carrier[found];
    }
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
    return undefined;
  },
  keys(carrier) {
    return Object.keys(carrier);
  },
};

function checkCarrier(value: unknown, what: string): Carrier {
  if (value === null || typeof value !== 'object') {
    throw new NemoLensTypeError(`nemo-lens: ${what} needs a carrier object (headers or an env object), got ${describe(value)}.`);
  }
  return value as Carrier;
}

function checkFormat(value: unknown): CarrierFormat {
  if (value === undefined || value === 'headers' || value === 'env') return value ?? 'headers';
  throw new NemoLensTypeError(`nemo-lens: injectContext({ format }) must be "headers" or "env", got ${describe(value)}.`);
}

/**
 * Write the W3C trace context of `options.context` (default: the active context) into
 * `carrier` and return it. Existing trace-context keys of that format are replaced, and
 * removed when there is no valid span to propagate, so a copied environment never passes a
 * stale `TRACEPARENT` on.
 */
export function injectContext(carrier?: undefined, options?: InjectOptions): Record<string, string>;
export function injectContext<C extends object>(carrier: C, options?: InjectOptions): C & Record<string, string | undefined>;
export function injectContext(carrier?: object, options: InjectOptions = {}): Record<string, unknown> {
  const target = checkCarrier(carrier ?? {}, 'injectContext(carrier)');
  const format = checkFormat(options?.format);
  for (const field of propagator().fields()) delete target[keyFor(field, format)];
  propagator().inject(options?.context ?? contextApi.active(), target, setterFor(format));
  return target;
}

/** The context `carrier` continues (either key case), on top of `options.context` (default: active). */
export function extractContext(carrier: object, options: ExtractOptions = {}): Context {
  const source = checkCarrier(carrier, 'extractContext(carrier)');
  return propagator().extract(options.context ?? contextApi.active(), source, anyCaseGetter);
}

/** The trace a parent process passed in `TRACEPARENT`/`TRACESTATE` (ROOT_CONTEXT with no valid one). */
export function contextFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): Context {
  const source = checkCarrier(env, 'contextFromEnv(env)');
  return propagator().extract(ROOT_CONTEXT, {
    traceparent: source['TRACEPARENT'],
    tracestate: source['TRACESTATE'],
  }, anyCaseGetter);
}

/** A copy of `env` (default `process.env`) carrying the active trace as `TRACEPARENT`/`TRACESTATE`, for a child process. */
export function envWithTraceContext(env: Readonly<Record<string, string | undefined>> = process.env, options: Omit<InjectOptions, 'format'> = {}): NodeJS.ProcessEnv {
  return injectContext({ ...checkCarrier(env, 'envWithTraceContext(env)') } as NodeJS.ProcessEnv, { ...options, format: 'env' });
}
