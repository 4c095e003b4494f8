/**
 * The one module that knows about `ProxyTracerProvider`.
 *
 * `@opentelemetry/api` 1.x hands out its global tracer provider as a `ProxyTracerProvider`
 * whose delegate is the SDK registered with `trace.setGlobalTracerProvider` (or the API's
 * no-op provider before that). Upstream deprecates the class (its index.ts: "Remove ... in
 * the next major version"), so under API 2.0 this file is the single edit. It is duck-typed
 * (`getDelegate`), not `instanceof`, so a proxy from another copy of the API in the process
 * is unwrapped too.
 */
import { ProxyTracerProvider, trace, type Tracer, type TracerProvider } from '@opentelemetry/api';

/** The API's no-op provider: the delegate of a proxy nobody registered an SDK behind. */
const NOOP_PROVIDER: TracerProvider = new ProxyTracerProvider().getDelegate();

/** The provider behind the global API: the registered SDK's, or the API's no-op provider. */
export function globalTracerProvider(): TracerProvider {
  const global = trace.getTracerProvider() as TracerProvider & Partial<Pick<ProxyTracerProvider, 'getDelegate'>>;
  return typeof global.getDelegate === 'function' ? global.getDelegate() : global;
}

/** Whether some SDK (the host's, or an earlier setup's) is registered as the global provider. */
export function isGlobalTracerProviderSet(): boolean {
  return globalTracerProvider() !== NOOP_PROVIDER;
}

/** A tracer that records nothing, as the API's is before any SDK registers. */
export function noopTracer(name: string, version: string): Tracer {
  return NOOP_PROVIDER.getTracer(name, version);
}
