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
 *   - `enabled: true` (default `tracesEnabled`): a TracerProvider with crypto ids, the
 *     resource of resource.ts, an OpenSpanTracker and a BatchSpanProcessor in front of the
 *     exporter, registered globally with an AsyncLocalStorage context manager and the W3C
 *     trace-context + baggage propagators (`OTEL_PROPAGATORS` may choose others).
 *     If a host SDK registered a provider first, nemo-lens yields to it as with
 *     `tracesEnabled: false`, and says so (host-sdk.ts).
 *   - `OTEL_SDK_DISABLED=true` makes any setup a dark one, whatever the config says.
 *
 * The SDK is `@opentelemetry/sdk-trace` (2.x and 3.x lines, a peer dependency: the host's
 * copy); the `OTEL_*` variables it leaves to its callers are read in otel-env.ts.
 */
import { ROOT_CONTEXT, context, propagation, trace, type Context, type Tracer } from '@opentelemetry/api';
import { SimpleSpanProcessor, TracerProvider, type Span, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { workerData } from 'node:worker_threads';
import { NemoLensError, NemoLensTypeError, describe } from '../errors';
import { shared } from '../global';
import { noopTracer } from '../global-tracer-provider';
import { markSetupDone, setEnabledSpanGroups, setSpanGroupSpec } from '../registry';
import { VERSION } from '../version';
import { emitWarning } from '../warnings';
import { NemoLensConfig, type NemoLensConfigOptions } from './config';
import { BaseContextManager } from './context-manager';
import { planExporter } from './exporters';
import { WatchedBatchSpanProcessor } from './batch-processor';
import { buildExportPipeline, checkExportSettings, type ExportPipeline } from './export-pipeline';
import { EXPORT_WORKER_MARKER } from './export-worker/protocol';
import { exitHookSettings, registerExitFlush } from './exit-hooks';
import type { GuardedExporter } from './guarded-exporter';
import { ForeignSpanWatch, SCOPE_NAME, hostProvider, markOwnProvider, registeredProvider, warnHostSdkPresent, type ForeignSpans, type PipelineName } from './host-sdk';
import { CryptoIdGenerator } from './ids';
import { OpenSpanTracker } from './open-spans';
import {
  OTEL_HOOK_KEYS,
  buildPropagator,
  checkOtelHookOptions,
  chooseSampler,
  composeResource,
  detectedResource,
  installDiagLogger,
  registerPropagator,
  spanLimits,
  type OtelHookOptions,
} from './options';
import { sdkDisabled } from './otel-env';
import { contextFromEnv } from './propagation';
import { NO_RANK_MESSAGE, buildResource, checkResourceAttributes, planResourceAttributes, type ResourceAttributesInput } from './resource';
import { SpecFileWatcher, specFileSettings, type SpecFileSettings } from './spec-file';
import { settleWithin } from './timeout';

export interface TelemetryOptions extends OtelHookOptions {
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
  /**
   * Spans of other instrumentation that reach nemo-lens's provider (it is the global one):
   * `'warn'` (default) exports them and warns `NEMO_LENS_FOREIGN_SPANS` once; `'export'`
   * exports them quietly (nemo-lens is this process's SDK). See "Beside a host's SDK".
   */
  readonly foreignSpans?: ForeignSpans;
  /**
   * Flush on every ending (SIGTERM, SIGINT, SIGHUP, `process.exit()`, an uncaught exception,
   * an unhandled rejection), then end as without nemo-lens (see exit-hooks.ts). Default true,
   * or `NEMO_LENS_EXIT_HOOKS`; false for hosts that manage their own exit.
   */
  readonly exitHooks?: boolean;
  /** How long an ending may wait for the flush, in ms (default 5000, or `NEMO_LENS_EXIT_TIMEOUT_MS`). */
  readonly exitTimeoutMs?: number;
}

export interface TelemetryHandle {
  /** The tracer of this setup (a no-op tracer when disabled). */
  readonly tracer: Tracer;
  /**
   * Where nemo-lens spans go now: `'nemo-lens'` (this setup's exporter or span processors),
   * `'host'` (a host SDK's provider: `tracesEnabled: false`, or a host registered first), or
   * `'none'` (disabled, exporter `none` with no processors, no host SDK, or shut down).
   */
  readonly pipeline: PipelineName;
  /** `pipeline !== 'none'`: spans are going to an exporter, nemo-lens's or the host's. */
  readonly isExporting: boolean;
  /**
   * Export every ended span now (of the pipeline in `pipeline`). Never rejects; resolves
   * within `timeoutMs` (default 5000): `true` when the flush finished, `false` when it timed
   * out (warning `NEMO_LENS_FLUSH_TIMEOUT`) or there was nothing to flush into.
   */
  forceFlush(timeoutMs?: number): Promise<boolean>;
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
  /**
   * An in-memory test setup (nemo-lens/testing): its own pipeline whatever a host SDK or
   * OTEL_SDK_DISABLED say, so a consumer's test records every nemo-lens span.
   */
  readonly testSetup?: boolean;
}

const OPTION_KEYS: ReadonlySet<string> = new Set([
  'resourceAttributes',
  'spanExporter',
  'allowReinit',
  'continueTraceFromEnv',
  'foreignSpans',
  'exitHooks',
  'exitTimeoutMs',
  ...OTEL_HOOK_KEYS,
]);
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
  // nemo-lens's own export worker stays dark, even if a preload set telemetry up in it.
  if (!config.enabled || (sdkDisabled() && internal.testSetup !== true) || isExportWorker()) {
    replace(previous);
    setEnabledSpanGroups([]);
    return DISABLED_HANDLE;
  }
  const checked = checkResourceAttributes(options.resourceAttributes);
  const ownPipeline = config.tracesEnabled && (internal.testSetup === true || !yieldToHost(options));
  const plan = ownPipeline ? planExporter({ exporter: config.exporter, injected: options.spanExporter }) : undefined;
  const resource = ownPipeline ? planResourceAttributes(config, checked) : undefined;
  const baseContext = options.continueTraceFromEnv === false ? ROOT_CONTEXT : contextFromEnv();
  const specFile = specFileSettings();
  const exit = exitHookSettings(options.exitHooks, options.exitTimeoutMs);
  if (plan !== undefined) checkExportSettings();

  // 2. Build (no I/O), 3. switch over.
  let setup: Setup;
  if (plan === undefined || resource === undefined) {
    setup = new Setup(trace.getTracer(SCOPE_NAME, VERSION), undefined);
    replace(previous);
  } else {
    const composed = composeResource(buildResource(resource), detectedResource(), options.resource);
    const exported = buildExportPipeline(plan, composed.attributes, internal, (exporter) =>
      internal.processor === 'simple' ? new SimpleSpanProcessor({ exporter }) : new WatchedBatchSpanProcessor(exporter),
    );
    const exporter = exported?.exporter;
    const tracker = new OpenSpanTracker();
    const processors: SpanProcessor[] = [tracker];
    if (exported) processors.push(exported.processor);
    const extra = options.spanProcessors ?? [];
    processors.push(...extra, new ForeignSpanWatch(options.foreignSpans ?? 'warn', () => exported?.description ?? (extra.length > 0 ? 'the spanProcessors of setupTelemetry' : 'nowhere (exporter none)')));
    const provider = new TracerProvider({
      resource: composed,
      idGenerator: new CryptoIdGenerator(),
      spanProcessors: processors,
      sampler: chooseSampler(options),
      spanLimits: spanLimits(),
    });
    markOwnProvider(provider);
    setup = new Setup(provider.getTracer(SCOPE_NAME, VERSION), { provider, exporter, exported, tracker, exports: exported !== undefined || extra.length > 0 });
    replace(previous);
    setup.register(baseContext, exit);
  }
  setup.installDiag();
  shared.telemetry = setup.slot;
  markSetupDone(true);
  setSpanGroupSpec(setup.watchSpecFile(specFile, config.spanGroups));
  // A test setup is not a job's process: it has no rank to be missing.
  if (resource?.missingRank === true && internal.testSetup !== true) emitWarning('NEMO_LENS_NO_RANK', NO_RANK_MESSAGE);
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

/** A host registered its provider first: nemo-lens's spans go through it (host-sdk.ts). */
function yieldToHost(options: TelemetryOptions): boolean {
  if (hostProvider() === undefined) return false;
  const unused = (['spanExporter', 'sampler', 'spanProcessors', 'resource', 'resourceAttributes'] as const).filter((key) => options[key] !== undefined);
  warnHostSdkPresent(unused);
  return true;
}

function isExportWorker(): boolean {
  return (workerData as Record<string, unknown> | null)?.[EXPORT_WORKER_MARKER] === true;
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
  if (options.foreignSpans !== undefined && options.foreignSpans !== 'warn' && options.foreignSpans !== 'export') {
    throw new NemoLensError('ERR_NEMO_LENS_INVALID_ARGUMENT', `nemo-lens: setupTelemetry option foreignSpans must be "warn" or "export", got ${describe(options.foreignSpans)}.`);
  }
  checkOtelHookOptions(options);
  return options;
}

function checkTimeout(value: unknown, method = 'shutdown'): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new NemoLensTypeError(`nemo-lens: ${method}(timeoutMs) needs a number of milliseconds >= 0 (or Infinity), got ${describe(value)}.`);
  }
  return value;
}

interface Pipeline {
  readonly provider: TracerProvider;
  readonly exporter: GuardedExporter | undefined;
  readonly exported: ExportPipeline | undefined;
  readonly tracker: OpenSpanTracker;
  /** An exporter or extra span processors take the spans somewhere. */
  readonly exports: boolean;
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
  private uninstallDiag: (() => void) | undefined;
  private readonly onBeforeExit = (): void => {
    void this.shutdown();
  };
  private unregisterExit: (() => void) | undefined;

  constructor(
    readonly tracer: Tracer,
    private readonly own: Pipeline | undefined,
  ) {
    const tracker = own?.tracker;
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

  get pipeline(): PipelineName {
    if (this.stopped !== undefined) return 'none';
    if (this.own === undefined) return hostProvider() === undefined ? 'none' : 'host';
    return this.own.exports ? 'nemo-lens' : 'none';
  }

  get isExporting(): boolean {
    return this.pipeline !== 'none';
  }

  forceFlush(timeoutMs?: number): Promise<boolean> {
    const bound = checkTimeout(timeoutMs, 'forceFlush');
    return flushWithin(this.pipeline === 'none' ? undefined : (this.own?.provider ?? registeredProvider()), this.own?.exporter, bound);
  }

  /** `OTEL_LOG_LEVEL`: OpenTelemetry's diag logger to stderr, for the life of this setup. */
  installDiag(): void {
    this.uninstallDiag = installDiagLogger();
  }

  register(base: Context, exit: { enabled: boolean; timeoutMs: number }): void {
    const provider = this.own!.provider;
    // Checked just before (yieldToHost): no other SDK provider is registered, so this one wins.
    this.registered.tracerProvider = trace.setGlobalTracerProvider(provider);
    const manager = new BaseContextManager(base).enable();
    this.registered.contextManager = context.setGlobalContextManager(manager);
    if (!this.registered.contextManager) manager.disable();
    this.registered.propagator = registerPropagator(buildPropagator());
    // A process that ends without calling shutdown still exports what it recorded.
    process.once('beforeExit', this.onBeforeExit);
    const { tracker, exported } = this.own!;
    if (exit.enabled && exported !== undefined) {
      // Any other ending: open spans end (truncated, innermost first), then one bounded synchronous flush.
      this.unregisterExit = registerExitFlush(() => {
        this.detach();
        tracker.endAll();
        exported.flushSync(exit.timeoutMs);
      });
    }
  }

  shutdown(timeoutMs?: number): Promise<void> {
    if (this.stopped !== undefined) return this.stopped;
    const bound = checkTimeout(timeoutMs);
    this.detach();
    this.stopped = this.own === undefined ? Promise.resolve() : finish(this.own, bound);
    return this.stopped;
  }

  /** Leave the realm synchronously: a setup made right after this one must find everything free. */
  private detach(): void {
    process.off('beforeExit', this.onBeforeExit);
    this.specFile?.stop();
    this.unregisterExit?.();
    this.unregisterExit = undefined;
    if (shared.telemetry === this.slot) {
      shared.telemetry = undefined;
      markSetupDone(false);
    }
    if (this.registered.tracerProvider && registeredProvider() === this.own?.provider) {
      trace.disable();
    }
    this.uninstallDiag?.();
    this.uninstallDiag = undefined;
    if (this.registered.contextManager) context.disable();
    if (this.registered.propagator) propagation.disable();
    this.registered.tracerProvider = this.registered.contextManager = this.registered.propagator = false;
  }
}

/**
 * Flush `provider` (this setup's, or the host's) within `timeoutMs`; never rejects. The SDK's
 * own forceFlush waits for the exporter's timeout (10 s and more against a hung collector).
 */
async function flushWithin(provider: unknown, exporter: GuardedExporter | undefined, timeoutMs: number): Promise<boolean> {
  const flush = (provider as { forceFlush?: () => Promise<void> } | undefined)?.forceFlush;
  if (typeof flush !== 'function') return false;
  let outcome: 'done' | 'timeout';
  try {
    outcome = await settleWithin(Promise.resolve().then(() => flush.call(provider)), timeoutMs);
  } catch {
    return false;
  }
  if (outcome === 'done') return true;
  // During a reported outage the timeout is the same news.
  if (exporter?.isFailing !== true) {
    emitWarning(
      'NEMO_LENS_FLUSH_TIMEOUT',
      `nemo-lens: forceFlush did not finish within ${timeoutMs} ms (${exporter?.description ?? 'the tracer provider'} did not answer); ` +
        'the spans stay queued and export continues in the background. Check the collector, or pass a longer timeout to forceFlush(timeoutMs).',
    );
  }
  return false;
}

async function finish({ provider, exporter, exported, tracker }: Pipeline, timeoutMs: number): Promise<void> {
  try {
    // The worker stops a little before the bound, so that its answer arrives within it.
    const worker = exported?.worker;
    if (worker) worker.shutdownDeadline = Date.now() + timeoutMs - Math.min(100, timeoutMs / 10);
    // Before the provider shuts its processors down, so the truncated spans are exported too.
    tracker.endAll();
    const settled = await settleWithin(provider.shutdown(), timeoutMs);
    // The worker path: spans left when the worker stopped, or no answer at all.
    const outcome = worker === undefined ? settled : worker.outcome === undefined || worker.outcome.left > 0 ? 'timeout' : 'done';
    if (outcome === 'timeout') {
      // During a reported outage the timeout is the same news: spans are being dropped.
      const reported = exporter?.isFailing === true || worker?.outcome?.failing === true;
      // Read before abandoning: what the exporter's attempts met (refused, timed out, HTTP 503).
      const problem = exporter?.lastProblem ?? worker?.outcome?.problem;
      const why = problem === undefined ? ' did not answer' : `: ${problem}`;
      exporter?.abandon(`nemo-lens shutdown gave up after ${timeoutMs} ms`);
      if (!reported) emitWarning(
        'NEMO_LENS_SHUTDOWN_TIMEOUT',
        `nemo-lens: telemetry shutdown did not finish within ${timeoutMs} ms (${exported?.description ?? 'the exporter'}${why}); ` +
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
  tracer: noopTracer(SCOPE_NAME, VERSION),
  pipeline: 'none',
  isExporting: false,
  forceFlush: (timeoutMs?: number) => {
    checkTimeout(timeoutMs, 'forceFlush');
    return Promise.resolve(false);
  },
  shutdown: (() => {
    const done = Promise.resolve();
    return (_timeoutMs?: number) => done;
  })(),
});
