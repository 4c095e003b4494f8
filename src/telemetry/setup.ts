/**
 * `setupTelemetry`: from a config to a running OpenTelemetry pipeline, and back.
 *
 * The order matters and is the contract:
 *   1. check everything (config, options, exporter protocol, resource attributes) and refuse
 *      a second setup, before anything is created, so a bad call leaves nothing behind;
 *   2. build the exporter, span processors and provider (no I/O yet);
 *   3. shut the previous setup down (only with `allowReinit`), register the new one
 *      globally, set the setup flag (later registrations warn) and apply the spec.
 *
 * The active setup lives in the realm-wide state (`shared.telemetry`, see global.ts), so two
 * copies of this package in one process see one setup; `managedSpan` reads its `tracer`.
 *
 * What `enabled` and `tracesEnabled` mean:
 *   - `enabled: false`: a dark process. No provider, a no-op tracer, the enabled set pinned
 *     empty (a spec set later does not light it up by accident), `isExporting` false.
 *   - `enabled: true, tracesEnabled: false`: nemo-lens installs no tracer provider and exports
 *     nothing itself, but the spec *is* applied and the setup flag set. Gated sites then emit
 *     through the global OpenTelemetry API, that is into the host's own SDK if it registered
 *     one (and nowhere otherwise). This is how a host with its own pipeline uses span groups.
 *   - `enabled: true` (default `tracesEnabled`): a NodeTracerProvider with crypto ids, the
 *     resource of resource.ts, an OpenSpanTracker and a BatchSpanProcessor in front of the
 *     exporter, registered globally with an AsyncLocalStorage context manager and the W3C
 *     trace-context + baggage propagators.
 */
import { ROOT_CONTEXT, context, propagation, trace, type Context, type Tracer } from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { NodeTracerProvider, SimpleSpanProcessor, type Span, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { NemoLensError, NemoLensTypeError, describe } from '../errors';
import { shared } from '../global';
import { globalTracerProvider, isGlobalTracerProviderSet, noopTracer } from '../global-tracer-provider';
import { markSetupDone, setEnabledSpanGroups, setSpanGroupSpec } from '../registry';
import { VERSION } from '../version';
import { emitWarning } from '../warnings';
import { NemoLensConfig, type NemoLensConfigOptions } from './config';
import { BaseContextManager } from './context-manager';
import { planExporter } from './exporters';
import { WatchedBatchSpanProcessor } from './batch-processor';
import { GuardedExporter } from './guarded-exporter';
import { CryptoIdGenerator } from './ids';
import { OpenSpanTracker } from './open-spans';
import { contextFromEnv } from './propagation';
import { NO_RANK_MESSAGE, buildResource, checkResourceAttributes, planResourceAttributes, type ResourceAttributesInput } from './resource';
import { SpecFileWatcher, specFileSettings, type SpecFileSettings } from './spec-file';
import { settleWithin } from './timeout';

export interface TelemetryOptions {
  /**
   * Extra resource attributes. `dl.rank` and `dl.world_size` (also spelt `rank`, `worldSize`,
   * `world_size`; numbers or decimal strings) identify the rank and add
   * `service.instance.id = <runId>-rank<rank>`.
   */
  readonly resourceAttributes?: ResourceAttributesInput;
  /** Export here instead of the configured exporter (tests, hosts with their own pipeline). */
  readonly spanExporter?: SpanExporter;
  /** Shut an active setup down and replace it, instead of throwing ERR_NEMO_LENS_ALREADY_INITIALIZED. */
  readonly allowReinit?: boolean;
  /**
   * Continue the trace (and baggage) a parent process passed in the environment, as
   * `traceparent`/`tracestate`/`baggage` or in upper case (default true):
   * spans with no other parent become children of the parent's span. See propagation.ts.
   */
  readonly continueTraceFromEnv?: boolean;
}

export interface TelemetryHandle {
  /** The tracer of this setup (a no-op tracer when disabled). */
  readonly tracer: Tracer;
  /** True while spans go to an exporter: enabled, traces on, an exporter other than `none`, not shut down. */
  readonly isExporting: boolean;
  /**
   * End open spans (marked truncated), flush and stop exporting. Idempotent (every call
   * returns the first call's promise), never rejects, and resolves within `timeoutMs`
   * (default 5000; `Infinity` waits for the exporter) even when the collector hangs.
   * After a timeout the OTLP exporter's request and retries are cut, so nothing of
   * nemo-lens keeps the process alive once this has resolved.
   */
  shutdown(timeoutMs?: number): Promise<void>;
}

/** What the realm-wide slot holds; `tracer` and `watchSettlement` are read by managedSpan (span.ts). */
interface ActiveTelemetry {
  readonly tracer: Tracer;
  readonly handle: TelemetryHandle;
  /** Lets the open-span tracker end spans whose promise was abandoned (open-spans.ts). */
  readonly watchSettlement?: (span: Span, sentinel: object) => void;
}

/** Test-only knobs (nemo-lens/testing): export each span as it ends instead of in batches. */
export interface InternalOptions {
  readonly processor?: 'batch' | 'simple';
}

const OPTION_KEYS: ReadonlySet<string> = new Set(['resourceAttributes', 'spanExporter', 'allowReinit', 'continueTraceFromEnv']);
const DEFAULT_TIMEOUT_MS = 5000;

export function activeTelemetry(): ActiveTelemetry | undefined {
  return shared.telemetry as ActiveTelemetry | undefined;
}

/**
 * Set up telemetry for this process from `config` (default `NemoLensConfig.fromEnv()`).
 * Throws, having created nothing, on an invalid config or options, or when a setup is
 * already active (`ERR_NEMO_LENS_ALREADY_INITIALIZED`, unless `allowReinit`).
 *
 * **Applications call this once, at start-up; libraries never call it.** It installs the
 * process-wide OpenTelemetry tracer provider, context manager and propagator and an exit
 * hook, and applies the span-group spec: choices that belong to the application. A library
 * only registers its groups (`SpanRegistry.register`) and gates its sites (`managedSpan`,
 * `traceFn`, `spanGroup`); those work before, after and without any setup. A library that
 * called this would make the host's own call fail with `ERR_NEMO_LENS_ALREADY_INITIALIZED`.
 */
export function setupTelemetry(config?: NemoLensConfig | NemoLensConfigOptions, options?: TelemetryOptions): TelemetryHandle {
  return installTelemetry(config, options, {});
}

export function installTelemetry(
  configInput: NemoLensConfig | NemoLensConfigOptions | undefined,
  optionsInput: TelemetryOptions | undefined,
  internal: InternalOptions,
): TelemetryHandle {
  // 1. Check everything.
  const config = configInput === undefined ? NemoLensConfig.fromEnv() : toConfig(configInput);
  const options = checkOptions(optionsInput);
  const previous = activeTelemetry();
  if (previous !== undefined && options.allowReinit !== true) {
    throw new NemoLensError(
      'ERR_NEMO_LENS_ALREADY_INITIALIZED',
      'nemo-lens: telemetry is already set up in this process (an enabled setupTelemetry is active). ' +
        'Call shutdown() on its handle first, or pass { allowReinit: true } to replace it.',
    );
  }
  if (!config.enabled) {
    replace(previous);
    setEnabledSpanGroups([]);
    return DISABLED_HANDLE;
  }
  const checked = checkResourceAttributes(options.resourceAttributes);
  const plan = config.tracesEnabled ? planExporter({ exporter: config.exporter, injected: options.spanExporter }) : undefined;
  const resource = config.tracesEnabled ? planResourceAttributes(config, checked) : undefined;
  const baseContext = options.continueTraceFromEnv === false ? ROOT_CONTEXT : contextFromEnv();
  const specFile = specFileSettings();

  // 2. Build (no I/O), 3. switch over.
  let setup: Setup;
  if (plan === undefined || resource === undefined) {
    setup = new Setup(trace.getTracer('nemo-lens', VERSION), undefined);
    replace(previous);
  } else {
    const exporter = plan.build && new GuardedExporter(plan.build(), plan.target);
    const tracker = new OpenSpanTracker();
    const processors: SpanProcessor[] = [tracker];
    if (exporter) processors.push(internal.processor === 'simple' ? new SimpleSpanProcessor(exporter) : new WatchedBatchSpanProcessor(exporter));
    const provider = new NodeTracerProvider({ resource: buildResource(resource), idGenerator: new CryptoIdGenerator(), spanProcessors: processors });
    setup = new Setup(provider.getTracer('nemo-lens', VERSION), { provider, exporter, tracker });
    replace(previous);
    setup.register(baseContext);
  }
  shared.telemetry = setup.slot;
  markSetupDone(true);
  setSpanGroupSpec(setup.watchSpecFile(specFile, config.spanGroups));
  if (resource?.missingRank === true) emitWarning('NEMO_LENS_NO_RANK', NO_RANK_MESSAGE);
  return setup;
}

/** Shut the previous setup down; its shutdown leaves the realm synchronously, the flush goes on in the background. */
function replace(previous: ActiveTelemetry | undefined): void {
  if (previous === undefined) return;
  void previous.handle.shutdown().catch(() => undefined);
  // A setup made by another copy of this package may predate the synchronous detach.
  if (shared.telemetry === previous) shared.telemetry = undefined;
}

function toConfig(value: unknown): NemoLensConfig {
  if (value instanceof NemoLensConfig) return value;
  if (value === null || typeof value !== 'object') {
    throw new NemoLensTypeError(`nemo-lens: setupTelemetry(config) needs a NemoLensConfig or an options object, got ${describe(value)}.`);
  }
  // A plain object, or a NemoLensConfig of another copy of this package: validate its fields.
  if (isPlain(value)) return new NemoLensConfig(value as NemoLensConfigOptions);
  const { enabled, spanGroups, exporter, tracesEnabled, runId, userId, serviceName } = value as NemoLensConfigOptions;
  return new NemoLensConfig({ enabled, spanGroups, exporter, tracesEnabled, runId, userId, serviceName });
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function checkOptions(value: unknown): TelemetryOptions {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object') {
    throw new NemoLensTypeError(`nemo-lens: setupTelemetry(config, options) needs an options object, got ${describe(value)}.`);
  }
  for (const key of Object.keys(value)) {
    if (!OPTION_KEYS.has(key)) {
      throw new NemoLensError(
        'ERR_NEMO_LENS_INVALID_ARGUMENT',
        `nemo-lens: unknown setupTelemetry option ${describe(key)}; the options are ${[...OPTION_KEYS].join(', ')}.`,
      );
    }
  }
  const options = value as TelemetryOptions;
  for (const key of ['allowReinit', 'continueTraceFromEnv'] as const) {
    if (options[key] !== undefined && typeof options[key] !== 'boolean') {
      throw new NemoLensTypeError(`nemo-lens: setupTelemetry option ${key} must be a boolean, got ${describe(options[key])}.`);
    }
  }
  const exporter = options.spanExporter as Partial<SpanExporter> | undefined;
  if (exporter !== undefined && (exporter === null || typeof exporter.export !== 'function' || typeof exporter.shutdown !== 'function')) {
    throw new NemoLensTypeError(
      `nemo-lens: setupTelemetry option spanExporter must be an OpenTelemetry SpanExporter (with export and shutdown methods), got ${describe(exporter)}.`,
    );
  }
  return options;
}

function checkTimeout(value: unknown): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new NemoLensTypeError(`nemo-lens: shutdown(timeoutMs) needs a number of milliseconds >= 0 (or Infinity), got ${describe(value)}.`);
  }
  return value;
}

interface Pipeline {
  readonly provider: NodeTracerProvider;
  readonly exporter: GuardedExporter | undefined;
  readonly tracker: OpenSpanTracker;
}

/** The OpenTelemetry API singleton each setup may have claimed, to give back exactly those. */
interface Registered {
  tracerProvider: boolean;
  contextManager: boolean;
  propagator: boolean;
}

class Setup implements TelemetryHandle {
  readonly slot: ActiveTelemetry;
  private stopped: Promise<void> | undefined;
  private specFile: SpecFileWatcher | undefined;
  private readonly registered: Registered = { tracerProvider: false, contextManager: false, propagator: false };
  private readonly onBeforeExit = (): void => {
    void this.shutdown();
  };

  constructor(
    readonly tracer: Tracer,
    private readonly pipeline: Pipeline | undefined,
  ) {
    const tracker = pipeline?.tracker;
    this.slot = Object.freeze({ tracer, handle: this, watchSettlement: tracker && ((span: Span, sentinel: object) => tracker.watchSettlement(span, sentinel)) });
  }

  /**
   * With `NEMO_LENS_SPAN_GROUPS_FILE`, the spec comes from that file and follows it until
   * shutdown (spec-file.ts); returns the spec to apply now.
   */
  watchSpecFile(settings: SpecFileSettings | undefined, envSpec: string): string {
    if (settings === undefined) return envSpec;
    this.specFile = new SpecFileWatcher(settings, envSpec);
    const spec = this.specFile.readInitial();
    this.specFile.start();
    return spec;
  }

  get isExporting(): boolean {
    return this.stopped === undefined && this.pipeline?.exporter !== undefined;
  }

  register(base: Context): void {
    const provider = this.pipeline!.provider;
    // The API refuses a second global provider (and logs through diag). Check first, and say
    // what happens: nemo-lens spans still go to this setup's exporter through `tracer`.
    if (isGlobalTracerProviderSet()) {
      emitWarning(
        'NEMO_LENS_GLOBAL_PROVIDER_EXISTS',
        'nemo-lens: another OpenTelemetry tracer provider is already registered globally, so nemo-lens did not replace it. ' +
          'Spans of managedSpan/traceFn go to the nemo-lens exporter; other instrumentation keeps using the existing provider. ' +
          'To send nemo-lens spans through that provider instead, set tracesEnabled: false (NEMO_LENS_TRACES_ENABLED=false).',
      );
    } else {
      this.registered.tracerProvider = trace.setGlobalTracerProvider(provider);
    }
    const manager = new BaseContextManager(base).enable();
    this.registered.contextManager = context.setGlobalContextManager(manager);
    if (!this.registered.contextManager) manager.disable();
    this.registered.propagator = propagation.setGlobalPropagator(
      new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
    );
    // A process that ends without calling shutdown still exports what it recorded.
    process.once('beforeExit', this.onBeforeExit);
  }

  shutdown(timeoutMs?: number): Promise<void> {
    if (this.stopped !== undefined) return this.stopped;
    const bound = checkTimeout(timeoutMs);
    this.detach();
    this.stopped = this.pipeline === undefined ? Promise.resolve() : finish(this.pipeline, bound);
    return this.stopped;
  }

  /** Leave the realm synchronously: a setup made right after this one must find everything free. */
  private detach(): void {
    process.off('beforeExit', this.onBeforeExit);
    this.specFile?.stop();
    if (shared.telemetry === this.slot) {
      shared.telemetry = undefined;
      markSetupDone(false);
    }
    if (this.registered.tracerProvider && globalTracerProvider() === this.pipeline?.provider) {
      trace.disable();
    }
    if (this.registered.contextManager) context.disable();
    if (this.registered.propagator) propagation.disable();
    this.registered.tracerProvider = this.registered.contextManager = this.registered.propagator = false;
  }
}

async function finish({ provider, exporter, tracker }: Pipeline, timeoutMs: number): Promise<void> {
  try {
    // Before the provider shuts its processors down, so the truncated spans are exported too.
    tracker.endAll();
    const outcome = await settleWithin(provider.shutdown(), timeoutMs);
    if (outcome === 'timeout') {
      // During a reported outage the timeout is the same news: spans are being dropped.
      const reported = exporter?.isFailing === true;
      // Read before abandoning: what the exporter's attempts met (refused, timed out, HTTP 503).
      const problem = exporter?.lastProblem;
      const why = problem === undefined ? ' did not answer' : `: ${problem}`;
      exporter?.abandon(`nemo-lens shutdown gave up after ${timeoutMs} ms`);
      if (!reported) emitWarning(
        'NEMO_LENS_SHUTDOWN_TIMEOUT',
        `nemo-lens: telemetry shutdown did not finish within ${timeoutMs} ms (${exporter?.description ?? 'the exporter'}${why}); ` +
          'spans not yet exported are dropped. ' +
          'Check the collector, or pass a longer timeout to shutdown(timeoutMs).',
      );
    }
  } catch {
    // shutdown() never rejects: the host is usually on its way out.
  }
}

/** The handle of a disabled setup: nothing to stop. */
const DISABLED_HANDLE: TelemetryHandle = Object.freeze({
  tracer: noopTracer('nemo-lens', VERSION),
  isExporting: false,
  shutdown: (() => {
    const done = Promise.resolve();
    return (_timeoutMs?: number) => done;
  })(),
});
