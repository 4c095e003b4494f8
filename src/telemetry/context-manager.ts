/**
 * The context manager a setup registers: AsyncLocalStorage, as the OpenTelemetry Node SDK
 * uses, plus an optional *base* context that stands in for the root.
 *
 * A child process started with `TRACEPARENT` should continue its parent's trace without
 * wrapping its whole program in `context.with(...)`: AsyncLocalStorage offers no way to set
 * a process-wide default, so this manager answers the base context wherever the store holds
 * nothing (or the root context). Spans started anywhere in the process then default to
 * children of the parent's span. The one visible difference: `context.with(ROOT_CONTEXT, fn)`
 * also sees the base context; start a span with `{ root: true }` to begin a new trace.
 */
import { ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';

export class BaseContextManager extends AsyncLocalStorageContextManager {
  constructor(private readonly base: Context) {
    super();
  }

  override active(): Context {
    const current = super.active();
    return current === ROOT_CONTEXT ? this.base : current;
  }
}
