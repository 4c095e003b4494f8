/**
 * Instrumentation sites: `managedSpan`, `traceFn`, `spanCm`.
 *
 * The disabled path of `managedSpan` and of a `traceFn` wrapper is the product: it runs
 * millions of times and must cost next to nothing. It reads the gate (a field of a JS
 * object, see gate.ts) and calls the callback; it allocates nothing and calls no
 * OpenTelemetry API. Two details measured in bench/ decide its shape:
 *   - pick the callback with `typeof a === 'function' ? a(undefined) : b(undefined)`, not
 *     `(b === undefined ? a : b)(undefined)` (the latter cost +6 ns a call on Node 20);
 *   - do no work before the gate (attribute objects belong inside `if (span)`).
 */
import {
  SpanStatusCode,
  context,
  trace,
  type Context,
  type Attributes,
  type Link,
  type Span,
  type SpanKind,
  type SpanOptions,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';

import { cleanAttributes } from './attributes';
import { hrNow } from './clock';
import { NemoLensTypeError, describe } from './errors';
import { isStringEnabled, spanGroup, type SpanGroup, type SpanGroupLike } from './gate';
import { shared } from './global';
import { globalTracerProvider } from './global-tracer-provider';
import { outOfLine } from './out-of-line';
import { VERSION } from './version';

/** The attribute naming the span group of every gated span. */
export const SPAN_GROUP_ATTRIBUTE = 'nemo.span_group';

export interface ManagedSpanOptions {
  /** Tracer to start the span on; default: the active `setupTelemetry` tracer, else the global API's. */
  readonly tracer?: Tracer;
  readonly attributes?: Attributes;
  readonly kind?: SpanKind;
  readonly links?: Link[];
}

const few = shared.few;

function groupName(group: SpanGroupLike): string {
  return typeof group === 'string' ? group : group.name;
}

/** The global API's tracer, fetched again only when the global provider changes. */
let globalTracer: { provider: TracerProvider; tracer: Tracer } | undefined;

function defaultTracer(): Tracer {
  const telemetry = shared.telemetry as { readonly tracer?: Tracer } | undefined;
  if (telemetry?.tracer !== undefined) return telemetry.tracer;
  // trace.getTracer() per span costs a provider lookup and a key string; the SDK behind the
  // global proxy provider changes only on (re)registration, so cache against it.
  const provider = globalTracerProvider();
  if (globalTracer?.provider !== provider) globalTracer = { provider, tracer: provider.getTracer('nemo-lens', VERSION) };
  return globalTracer.tracer;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as PromiseLike<unknown>).then === 'function'
  );
}

/**
 * How a failed span's status message reads, as the reference writes it per function:
 * `managed_span` sets `str(exc)` ("bad thing"); `trace_fn` and `span_cm` go through the
 * SDK's `start_as_current_span`, which sets `"{type}: {exc}"` ("CustomError: bad thing").
 * A job's Python and Node spans then read alike in one backend.
 */
type StatusStyle = 'message' | 'typed';

/** The class name of an Error, as Python's `type(exc).__name__`: a custom `name`, else the constructor's. */
function errorTypeName(error: Error): string {
  const name = error.name;
  if (typeof name === 'string' && name !== '' && name !== 'Error') return name;
  const constructorName = (error.constructor as { name?: unknown } | undefined)?.name;
  return typeof constructorName === 'string' && constructorName !== '' ? constructorName : 'Error';
}

/** The status message for a thrown value; never throws (String() of some values does). */
function failureMessage(error: unknown, style: StatusStyle): string {
  try {
    if (!(error instanceof Error)) return String(error);
    const message = String(error.message);
    return style === 'typed' ? `${errorTypeName(error)}: ${message}` : message;
  } catch {
    return 'a thrown value that cannot be converted to a string';
  }
}

function recordFailure(span: Span, error: unknown, style: StatusStyle): void {
  const message = failureMessage(error, style);
  try {
    if (error instanceof Error) span.recordException(error);
    else span.recordException({ name: 'NonErrorThrown', message });
  } catch {
    // A broken span implementation, or an error whose fields throw, must not replace the
    // user's error, nor keep the status below from being set.
  }
  try {
    span.setStatus({ code: SpanStatusCode.ERROR, message });
  } catch {
    // As above.
  }
}

function endQuietly(span: Span): void {
  try {
    // The same clock as the start (clock.ts), so children end inside their parents.
    span.end(hrNow());
  } catch {
    // Ending is best effort; the user's result matters more.
  }
}

/** Run `fn(span)` with `span` current; end it when `fn` returns or its promise settles. */
function runInSpan<T>(span: Span, parent: Context, style: StatusStyle, fn: (span: Span) => T): T {
  let result: T;
  try {
    result = context.with(trace.setSpan(parent, span), fn, undefined, span);
  } catch (error) {
    recordFailure(span, error, style);
    endQuietly(span);
    throw error;
  }
  if (!returnsThenable(result)) {
    endQuietly(span);
    return result;
  }
  const onFulfilled = (value: unknown): unknown => {
    endQuietly(span);
    return value;
  };
  // Promise.resolve adopts any thenable, including one whose `then` returns nothing.
  const settled = Promise.resolve(result).then(onFulfilled, (error: unknown) => {
    recordFailure(span, error, style);
    endQuietly(span);
    throw error;
  });
  watchSettlement(span, onFulfilled);
  return settled as T;
}

/**
 * `isThenable`, for a value the user's callback returned: a `then` getter that throws, or a
 * revoked Proxy, counts as "not a thenable", so the span still ends and the caller gets the
 * very value the callback returned (which is what they would get with the group disabled).
 */
function returnsThenable(result: unknown): boolean {
  try {
    return isThenable(result);
  } catch {
    return false;
  }
}

/**
 * Tell the active setup's open-span tracker that `span` ends when `sentinel` (the promise's
 * `then` reaction) runs: if the promise is collected unsettled, the tracker ends the span as
 * abandoned instead of holding it forever (telemetry/open-spans.ts). Other installed copies
 * may predate the hook: their setups have none (nothing happens); a tracker whose sites never
 * call it holds their pending spans weakly, so an abandoned one is counted, not exported.
 */
function watchSettlement(span: Span, sentinel: object): void {
  (shared.telemetry as { readonly watchSettlement?: (span: Span, sentinel: object) => void } | undefined)?.watchSettlement?.(span, sentinel);
}

function spanOptions(options: ManagedSpanOptions | undefined, group: string | undefined): SpanOptions {
  // Redacted and cleaned as safeSetSpanAttributes does: a `prompt` given here must not reach
  // the backend either (the reference sends these through safe_set_span_attributes too).
  const attributes: Attributes = cleanAttributes(options?.attributes);
  if (group !== undefined) attributes[SPAN_GROUP_ATTRIBUTE] = group;
  return { attributes, kind: options?.kind, links: options?.links, startTime: hrNow() };
}

/** Start a span; if the tracer itself fails, run `fn` without one rather than fail the host. */
function startAndRun<T>(
  name: string,
  options: ManagedSpanOptions | undefined,
  group: string | undefined,
  style: StatusStyle,
  fn: (span: Span | undefined) => T,
): T {
  const parent = context.active();
  let span: Span;
  try {
    span = (options?.tracer ?? defaultTracer()).startSpan(name, spanOptions(options, group), parent);
  } catch {
    return fn(undefined);
  }
  return runInSpan(span, parent, style, fn);
}

/**
 * Throw unless `fn` is a function. `given` is what the caller passed as the callback, for the
 * message: in `(…, [options,] fn)` calls that is the last argument, which is `fn`'s slot only
 * when options were given (`managedSpan('on', 's', 42)` must report the 42, not `undefined`).
 */
function checkCallback(fn: unknown, given: unknown, api: string): void {
  if (typeof fn !== 'function') throw new NemoLensTypeError(`nemo-lens: ${api} needs a callback function, got ${describe(given)}.`);
}

/** The callback a `(…, a, [b])` call was given: its last argument. */
function lastArgument(a: unknown, b: unknown): unknown {
  return b === undefined ? a : b;
}

/**
 * Run `fn` in a span of `group` when the group is enabled: the span is current inside `fn`,
 * ends when `fn` returns or its promise settles, and records a throw or rejection (status
 * ERROR) before the same value is rethrown. When the group is disabled: `fn(undefined)`,
 * nothing else. The gate is read at call time.
 *
 * A callback that is not a function is a coded `TypeError` when the group is enabled; when it
 * is disabled, the call fails with the engine's own `TypeError` (such as "b is not a function"),
 * because the disabled path checks nothing, by design (see the top of this module).
 */
export function managedSpan<T>(group: SpanGroupLike, name: string, fn: (span: Span | undefined) => T): T;
export function managedSpan<T>(group: SpanGroupLike, name: string, options: ManagedSpanOptions, fn: (span: Span | undefined) => T): T;
export function managedSpan<T>(
  group: SpanGroupLike,
  name: string,
  a: ManagedSpanOptions | ((span: Span | undefined) => T),
  b?: (span: Span | undefined) => T,
): T {
  // The gate test of isSpanGroupEnabled, written out: a disabled site must not depend on V8
  // inlining a call (large programs run out of inlining budget; see bench/).
  if (
    typeof group === 'string'
      ? (few.lengths & (1 << group.length)) === 0 || !isStringEnabled(group)
      : group == null || (group as SpanGroup).enabled !== true
  ) {
    return typeof a === 'function' ? a(undefined) : b!(undefined);
  }
  return openManagedSpanCall.fn.apply(undefined, arguments as unknown as Parameters<typeof openManagedSpan<T>>) as T;
}

/** managedSpan once its gate is open; called out of line, so that managedSpan stays small enough to inline (see out-of-line.ts). */
function openManagedSpan<T>(
  group: SpanGroupLike,
  name: string,
  a: ManagedSpanOptions | ((span: Span | undefined) => T),
  b: ((span: Span | undefined) => T) | undefined,
): T {
  const fn = typeof a === 'function' ? a : b;
  checkCallback(fn, lastArgument(a, b), 'managedSpan(group, name, [options,] fn)');
  return startAndRun(name, typeof a === 'function' ? undefined : a, groupName(group), 'message', fn!);
}

const openManagedSpanCall = outOfLine(openManagedSpan);

/** An ungated span around `fn`, made current for it; same ending and error rules as `managedSpan`. */
export function spanCm<T>(name: string, fn: (span: Span | undefined) => T): T;
export function spanCm<T>(name: string, options: ManagedSpanOptions, fn: (span: Span | undefined) => T): T;
export function spanCm<T>(name: string, a: ManagedSpanOptions | ((span: Span | undefined) => T), b?: (span: Span | undefined) => T): T {
  const fn = typeof a === 'function' ? a : b;
  checkCallback(fn, lastArgument(a, b), 'spanCm(name, [options,] fn)');
  return startAndRun(name, typeof a === 'function' ? undefined : a, undefined, 'typed', fn!);
}

/* eslint-disable @typescript-eslint/no-explicit-any -- a decorator must accept any function. */
type AnyFunction = (this: any, ...args: any[]) => any;

/**
 * A wrapper or method decorator from `traceFn`: TC39 (TypeScript 5 standard decorators) or
 * legacy (`experimentalDecorators`, as NestJS and TypeORM codebases use), which passes the
 * prototype, the key and the property descriptor and takes back a descriptor.
 */
export interface TraceFnDecorator {
  <F extends AnyFunction>(fn: F): F;
  <F extends AnyFunction>(method: F, context: ClassMethodDecoratorContext): F;
  <F extends AnyFunction>(target: object, propertyKey: string | symbol, descriptor: TypedPropertyDescriptor<F>): TypedPropertyDescriptor<F>;
}

/**
 * The enabled path of a traceFn wrapper, kept out of the wrapper: variables captured by a
 * closure live in a context object that V8 allocates on every call of the function that
 * declares them, disabled calls included (measured: one young-generation GC per ~150k
 * disabled calls; none with this split, see __test__/memory.spec.ts).
 */
function runTraced(name: string, options: ManagedSpanOptions | undefined, group: string, fn: AnyFunction, self: unknown, args: IArguments): unknown {
  return startAndRun<unknown>(name, options, group, 'typed', () => fn.apply(self, args as unknown as unknown[]));
}

/**
 * Trace every call of a function in a span of `group` (same contract as `managedSpan` per
 * call; async functions are awaited so the span covers the awaited work). Use as a wrapper,
 * `traceFn('step', 'train_step')(fn)`, or as a method decorator, `@traceFn('step', 'train_step')`.
 * The wrapper keeps the function's `name` and `length`.
 */
export function traceFn(group: SpanGroupLike, name: string, options?: ManagedSpanOptions): TraceFnDecorator {
  // A string group becomes its gate handle once, here: every wrapper then reads a field of
  // one hidden class, monomorphic however many groups the process uses (a `table[group]`
  // read shared by all wrappers goes megamorphic as soon as two names exist; see bench/).
  const gate = typeof group === 'string' ? spanGroup(group) : group;
  const wrap = (fn: AnyFunction): AnyFunction => {
    // The enabled path, in a function of its own for two reasons: `arguments` escaping into
    // runTraced would be materialised on every call, disabled ones included (`.apply(this,
    // arguments)` forwards them without); and called out of line (see out-of-line.ts), it keeps
    // the wrapper small enough to inline.
    const open = outOfLine(function (this: unknown): unknown {
      return runTraced(name, options, (gate as SpanGroup).name, fn, this, arguments);
    });
    const traced = function (this: unknown): unknown {
      // `arguments` rather than a rest parameter: V8 forwards it without materialising an array.
      if (gate == null || (gate as SpanGroup).enabled !== true) return fn.apply(this, arguments as unknown as unknown[]);
      return open.fn.apply(this, arguments as unknown as []);
    };
    Object.defineProperty(traced, 'name', { value: fn.name, configurable: true });
    Object.defineProperty(traced, 'length', { value: fn.length, configurable: true });
    return traced;
  };
  return function decorate(fn: unknown, _context?: unknown, descriptor?: PropertyDescriptor): unknown {
    if (isLegacyMethodCall(arguments.length, descriptor)) {
      checkCallback(descriptor.value, descriptor.value, '@traceFn(group, name) on a method (experimentalDecorators)');
      return { ...descriptor, value: wrap(descriptor.value as AnyFunction) };
    }
    checkCallback(fn, fn, 'traceFn(group, name)(fn)');
    return wrap(fn as AnyFunction);
  } as TraceFnDecorator;
}

/** A legacy (`experimentalDecorators`) method decorator call: (prototype, key, descriptor). */
function isLegacyMethodCall(count: number, descriptor: unknown): descriptor is PropertyDescriptor {
  return count === 3 && typeof descriptor === 'object' && descriptor !== null;
}
