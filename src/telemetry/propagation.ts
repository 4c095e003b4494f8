/**
 * W3C trace context across process boundaries.
 *
 *     // HTTP-style carriers (headers, message metadata): lowercase keys
 *     const headers = injectContext();                 // { traceparent: '00-…-01', tracestate?: … }
 *     const ctx = extractContext(request.headers);     // then context.with(ctx, handle)
 *
 *     // Child processes: environment variables, in both spellings (see below)
 *     spawn('node', ['worker.js'], { env: envWithTraceContext() });   // TRACEPARENT, traceparent, ...
 *     spawn('node', ['worker.js'], { env: envWithTraceContext(process.env, { resourceAttributes: { 'dl.rank': 3 } }) });
 *     // in the child, an enabled setupTelemetry() continues that trace by default (its
 *     // top-level spans become children of the parent's active span); without setup, or with
 *     // `continueTraceFromEnv: false`, do it explicitly:
 *     context.with(contextFromEnv(), main);
 *
 * Trace context and baggage travel together (W3C trace-context + baggage, as the reference's
 * propagator). An environment carrier is written in two spellings, because the two languages
 * of one job read different ones:
 *   - `TRACEPARENT`, `TRACESTATE`, `BAGGAGE`: the OpenTelemetry "environment variables as
 *     context propagation carriers" convention, which OpenTelemetry tooling reads;
 *   - `traceparent`, `tracestate`, `baggage`: what the Python reference reads. It has no
 *     environment reader of its own: a Python child continues with
 *     `extract_context(os.environ)`, whose getter looks keys up exactly as the header names
 *     (lower case), and a Python parent writes its carrier with `inject_context(env)`, in
 *     lower case too.
 * On read, either spelling is accepted per field; when both are present the lower-case one
 * wins, because only a Python parent writes it alone (our writer writes both, alike), so a
 * differing upper-case value is one inherited from further up and stale.
 *
 * These functions use the W3C propagators directly rather than the global one, so they work
 * the same whether or not a setup registered a propagator (a disabled process between two
 * enabled ones still passes its parent's context on).
 */
import { ROOT_CONTEXT, context as contextApi, type Context, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';
import type { CompositePropagator } from '@opentelemetry/core';
import { NemoLensTypeError, describe } from '../errors';
import { encodeResourceAttributes, type EncodableAttributes } from './resource-encoding';

export type CarrierFormat = 'headers' | 'env';

export interface InjectOptions {
  /** The context to propagate; default the active one. */
  readonly context?: Context;
  /**
   * `'headers'` (default): `traceparent`/`tracestate`/`baggage`; `'env'`: each of those in
   * upper case and in lower case (what OpenTelemetry tooling and a Python child read).
   */
  readonly format?: CarrierFormat;
}

export interface ExtractOptions {
  /** The context to add the remote span context to; default the active one. */
  readonly context?: Context;
}

type Carrier = Record<string, unknown>;

let w3c: CompositePropagator | undefined;

/** Created on first use, so importing nemo-lens does not load @opentelemetry/core. */
function propagator(): CompositePropagator {
  if (w3c === undefined) {
    const { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
    w3c = new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });
  }
  return w3c;
}

/** The carrier keys a field is written to: itself for headers, both spellings for an env. */
function keysFor(field: string, format: CarrierFormat): string[] {
  return format === 'env' ? [field.toUpperCase(), field] : [field];
}

function setterFor(format: CarrierFormat): TextMapSetter<Carrier> {
  return {
    set(carrier, key, value) {
      for (const name of keysFor(key, format)) carrier[name] = value;
    },
  };
}

/** An environment: the lower-case spelling (a Python parent's), else the upper-case one. */
const envGetter: TextMapGetter<Carrier> = {
  get(carrier, key) {
    for (const name of [key, key.toUpperCase()]) {
      const value = carrier[name];
      if (typeof value === 'string' && value.trim() !== '') return value;
    }
    return undefined;
  },
  keys(carrier) {
    return Object.keys(carrier);
  },
};

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
  for (const field of propagator().fields()) for (const key of keysFor(field, format)) delete target[key];
  propagator().inject(options?.context ?? contextApi.active(), target, setterFor(format));
  return target;
}

/** The context `carrier` continues (either key case), on top of `options.context` (default: active). */
export function extractContext(carrier: object, options: ExtractOptions = {}): Context {
  const source = checkCarrier(carrier, 'extractContext(carrier)');
  return propagator().extract(options.context ?? contextApi.active(), source, anyCaseGetter);
}

/**
 * The trace and baggage a parent process passed in the environment (ROOT_CONTEXT with
 * neither): `traceparent`/`tracestate`/`baggage` as a Python parent writes them, else
 * `TRACEPARENT`/`TRACESTATE`/`BAGGAGE`.
 */
export function contextFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): Context {
  const source = checkCarrier(env, 'contextFromEnv(env)');
  return propagator().extract(ROOT_CONTEXT, source, envGetter);
}

export interface EnvWithTraceContextOptions extends Omit<InjectOptions, 'format'> {
  /**
   * Resource attributes for the child (its rank, say), added to `OTEL_RESOURCE_ATTRIBUTES`
   * with `encodeResourceAttributes` on top of what `env` already carries there.
   */
  readonly resourceAttributes?: EncodableAttributes;
}

/**
 * A copy of `env` (default `process.env`) for a child process, carrying the active trace
 * and baggage (both spellings, see above) and, on request, resource attributes.
 */
export function envWithTraceContext(env: Readonly<Record<string, string | undefined>> = process.env, options: EnvWithTraceContextOptions = {}): Record<string, string | undefined> {
  // A plain record rather than NodeJS.ProcessEnv (the same shape): the shipped types need no @types/node.
  const copy = { ...checkCarrier(env, 'envWithTraceContext(env)') } as Record<string, string | undefined>;
  const { resourceAttributes, ...inject } = options ?? {};
  if (resourceAttributes !== undefined) {
    copy['OTEL_RESOURCE_ATTRIBUTES'] = encodeResourceAttributes(resourceAttributes, copy['OTEL_RESOURCE_ATTRIBUTES'] ?? '');
  }
  return injectContext(copy, { ...inject, format: 'env' });
}
