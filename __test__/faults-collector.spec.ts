/**
 * Collector faults, against a real OTLP/HTTP collector running in a process of its own that
 * the test steers (helpers/collector-process.ts): connection refused (the process killed
 * first), accept-and-never-answer, HTTP 500, 400 and 503, a connection reset, a slow but
 * healthy collector, a collector that recovers and fails again, and one killed mid-export.
 *
 * In every case the host's own work computes the same result without waiting on the
 * collector, nothing is thrown into it (no exception, no unhandled rejection), a run of failed
 * exports gives one NEMO_LENS_EXPORT_FAILED (not one per span or batch), and shutdown(timeoutMs)
 * resolves within its bound. telemetry-otlp.spec.ts covers the protocol itself against an
 * in-process receiver; this file is about faults of a separate collector process.
 */
import test, { type ExecutionContext } from 'ava';

import { SpanRegistry, managedSpan, onWarning, setupTelemetry, type NemoLensWarning } from '../src/index';
import { resetTelemetry } from '../src/testing';
import { startCollector, type CollectorMode, type CollectorProcess } from './helpers/collector';

const SPANS_PER_RUN = 2 * 1500; // 1500 train_step spans, each with a layer child
const FAILURE_CODES = new Set(['NEMO_LENS_EXPORT_FAILED', 'NEMO_LENS_SHUTDOWN_TIMEOUT']);
/**
 * How long to wait for the failure warning before shutting down: it comes as soon as the
 * exporter gives up (about 1 s here), but the export worker itself may take seconds to start
 * on a loaded machine, so the cap is generous (it costs nothing when the warning is early).
 */
const FAILURE_WAIT_MS = 15_000;

const thrownIntoHost: unknown[] = [];
process.on('unhandledRejection', (reason) => thrownIntoHost.push(reason));
process.on('uncaughtExceptionMonitor', (error) => thrownIntoHost.push(error));

test.beforeEach(async () => {
  await resetTelemetry();
  SpanRegistry.register('trainer', ['step', 'layer']);
  thrownIntoHost.length = 0;
});

test.after.always(() => resetTelemetry());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await sleep(20);
}

async function untilCollector(collector: CollectorProcess, condition: (stats: { requests: number; spans: number }) => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition(await collector.stats()) && Date.now() < deadline) await sleep(20);
}

/** The host's own work: spans around a computation, yielding to the event loop now and then. */
async function hostWork(spans = 1500): Promise<{ sum: number; expected: number; ms: number }> {
  const started = performance.now();
  let sum = 0;
  for (let i = 0; i < spans; i++) {
    sum += managedSpan('step', 'train_step', { attributes: { i } }, () => managedSpan('layer', 'layer', () => i));
    if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
  }
  return { sum, expected: (spans * (spans - 1)) / 2, ms: performance.now() - started };
}

interface Run {
  readonly warnings: NemoLensWarning[];
  readonly work: Array<{ sum: number; expected: number; ms: number }>;
  readonly shutdownMs: number;
}

interface RunOptions {
  /** Exporter timeout (OTEL_EXPORTER_OTLP_TIMEOUT), ms. */
  readonly exporterTimeoutMs: number;
  readonly shutdownBoundMs: number;
  /** Between the host's work and shutdown: wait for the failure warning (or this long at most). */
  readonly awaitFailureMs?: number;
  /** Runs between batches of host work (change the collector's mode, kill it, ...). */
  readonly between?: Array<() => Promise<unknown>>;
  /** train_step spans per burst of host work (each has a layer child); default 1500. */
  readonly spansPerBurst?: number;
  /** Runs after the host's work, right before shutdown. */
  readonly beforeShutdown?: () => Promise<void>;
}

async function runAgainst(url: string, options: RunOptions): Promise<Run> {
  const saved = { endpoint: process.env['OTEL_EXPORTER_OTLP_ENDPOINT'], timeout: process.env['OTEL_EXPORTER_OTLP_TIMEOUT'] };
  process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] = url;
  process.env['OTEL_EXPORTER_OTLP_TIMEOUT'] = String(options.exporterTimeoutMs);
  const warnings: NemoLensWarning[] = [];
  const stop = onWarning((warning) => void (warning.code !== 'NEMO_LENS_NO_RANK' && warnings.push(warning)));
  try {
    const handle = setupTelemetry({ enabled: true, spanGroups: 'all', exporter: 'otlp' }, { continueTraceFromEnv: false });
    const work = [await hostWork(options.spansPerBurst)];
    for (const step of options.between ?? []) {
      await step();
      work.push(await hostWork(options.spansPerBurst));
    }
    if (options.awaitFailureMs !== undefined) {
      await until(() => warnings.some((w) => w.code === 'NEMO_LENS_EXPORT_FAILED'), options.awaitFailureMs);
    }
    await options.beforeShutdown?.();
    const started = Date.now();
    await handle.shutdown(options.shutdownBoundMs); // never rejects: a rejection fails the test
    const shutdownMs = Date.now() - started;
    await sleep(30);
    return { warnings, work, shutdownMs };
  } finally {
    stop();
    for (const [key, value] of [
      ['OTEL_EXPORTER_OTLP_ENDPOINT', saved.endpoint],
      ['OTEL_EXPORTER_OTLP_TIMEOUT', saved.timeout],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

const codes = (run: Run) => run.warnings.map((w) => w.code).filter((code) => FAILURE_CODES.has(code));

/** What every fault must leave true for the host. */
function hostUnaffected(t: ExecutionContext, run: Run, boundMs: number): void {
  for (const work of run.work) {
    t.is(work.sum, work.expected, 'the host computed the same result');
    // Coarse on purpose: the host never waits on the collector (whose timeouts are 10^3 ms).
    t.true(work.ms < 3000, `the host's work took ${work.ms.toFixed(0)} ms`);
  }
  t.true(run.shutdownMs <= boundMs + 500, `shutdown(${boundMs}) took ${run.shutdownMs} ms`);
  t.deepEqual(thrownIntoHost, [], 'nothing thrown into the host');
  t.log(`host work ${run.work.map((w) => `${w.ms.toFixed(0)} ms`).join(', ')}; shutdown ${run.shutdownMs} ms; warnings ${codes(run).join(', ') || 'none'}`);
}

async function withCollector<T>(mode: CollectorMode, body: (collector: CollectorProcess) => Promise<T>, delayMs = 0): Promise<T> {
  const collector = await startCollector(mode, delayMs);
  try {
    return await body(collector);
  } finally {
    await collector.kill();
  }
}

test.serial('connection refused (the collector process is gone): one warning, bounded shutdown', async (t) => {
  const collector = await startCollector('ok');
  await collector.kill();
  const run = await runAgainst(collector.url, { exporterTimeoutMs: 2000, shutdownBoundMs: 1000, awaitFailureMs: FAILURE_WAIT_MS });
  hostUnaffected(t, run, 1000);
  t.deepEqual(codes(run), ['NEMO_LENS_EXPORT_FAILED']);
  t.regex(run.warnings[0]!.message, new RegExp(`${collector.url.replace(/\./g, '\\.')}/v1/traces`));
});

for (const mode of ['500', '400', '503', 'reset'] as const) {
  test.serial(`the collector answers ${mode === 'reset' ? 'by resetting the connection' : `HTTP ${mode}`}: one warning for the whole run of failed batches, bounded shutdown`, async (t) => {
    await withCollector(mode, async (collector) => {
      const run = await runAgainst(collector.url, { exporterTimeoutMs: 1000, shutdownBoundMs: 1000, awaitFailureMs: FAILURE_WAIT_MS });
      hostUnaffected(t, run, 1000);
      const failed = codes(run).filter((code) => code === 'NEMO_LENS_EXPORT_FAILED');
      t.is(failed.length, 1, 'one warning for the run of failures, not one per batch');
      t.true(codes(run).length <= 2, codes(run).join(', '));
      const { requests } = await collector.stats();
      t.true(requests >= 2, `the exporter kept trying (${requests} requests), warning only once`);
    });
  });
}

test.serial('a collector that accepts and never answers: shutdown(500) returns within its bound, one warning', async (t) => {
  await withCollector('hang', async (collector) => {
    // The exporter's own timeout (10 s, the default) is far beyond the shutdown bound.
    // Shut down while an export is held (the export worker may take a second to start).
    const held = async () => {
      const deadline = Date.now() + 10_000;
      while ((await collector.stats()).requests === 0 && Date.now() < deadline) await sleep(20);
    };
    const run = await runAgainst(collector.url, { exporterTimeoutMs: 10_000, shutdownBoundMs: 500, beforeShutdown: held });
    hostUnaffected(t, run, 500);
    t.is(codes(run).length, 1, codes(run).join(', '));
    t.true((await collector.stats()).requests >= 1);
  });
});

test.serial('a slow but healthy collector: every span arrives, no warning, shutdown waits for the flush', async (t) => {
  await withCollector(
    'slow',
    async (collector) => {
      // Two bursts that each fit the batch queue (2048 spans), with time between them to drain.
      const run = await runAgainst(collector.url, { exporterTimeoutMs: 5000, shutdownBoundMs: 8000, between: [() => sleep(1200)], spansPerBurst: 1000 });
      hostUnaffected(t, run, 8000);
      t.deepEqual(codes(run), []);
      t.is((await collector.stats()).spans, 2 * 2 * 1000, 'nothing dropped');
    },
    150,
  );
});

// Known gap, reported to the telemetry owner: the BatchSpanProcessor drops spans when its
// queue (2048) is full, and only tells OpenTelemetry's diag logger, which nobody installed.
// A burst against a slow collector thus loses spans with no warning at all. When nemo-lens
// warns about it, this test starts passing and ava asks for test.failing to be removed.
test.serial('a burst that overflows the batch queue against a slow collector warns that spans were dropped', async (t) => {
  await withCollector(
    'slow',
    async (collector) => {
      const run = await runAgainst(collector.url, { exporterTimeoutMs: 5000, shutdownBoundMs: 8000, spansPerBurst: 3000 });
      const received = (await collector.stats()).spans;
      t.log(`${2 * 3000} spans made, ${received} received, warnings: ${run.warnings.map((w) => w.code).join(', ') || 'none'}`);
      t.true(received === 2 * 3000 || run.warnings.some((w) => /drop/i.test(w.message)), 'spans lost without a warning');
    },
    150,
  );
});

test.serial('a collector that fails, recovers and fails again: one warning per run of failures, spans flow in between', async (t) => {
  await withCollector('500', async (collector) => {
    const run = await runAgainst(collector.url, {
      exporterTimeoutMs: 1000,
      shutdownBoundMs: 1000,
      awaitFailureMs: FAILURE_WAIT_MS,
      // Each change of mode waits for the collector to have seen the previous one (the export
      // worker may take a second to start), rather than for a fixed time.
      between: [
        async () => {
          await untilCollector(collector, (stats) => stats.requests >= 1);
          await collector.setMode('ok');
        },
        async () => {
          await untilCollector(collector, (stats) => stats.spans >= SPANS_PER_RUN / 2);
          await collector.setMode('500');
        },
      ],
    });
    hostUnaffected(t, run, 1000);
    t.deepEqual(
      codes(run).filter((code) => code === 'NEMO_LENS_EXPORT_FAILED'),
      ['NEMO_LENS_EXPORT_FAILED', 'NEMO_LENS_EXPORT_FAILED'],
    );
    t.true((await collector.stats()).spans >= SPANS_PER_RUN / 2, 'the healthy stretch exported');
  });
});

test.serial('the collector process is killed mid-export: one warning, the host goes on', async (t) => {
  await withCollector('hang', async (collector) => {
    const run = await runAgainst(collector.url, {
      exporterTimeoutMs: 10_000,
      shutdownBoundMs: 1000,
      between: [
        async () => {
          await until(() => false, 100);
          await collector.kill(); // held requests are cut; later ones are refused
        },
      ],
    });
    hostUnaffected(t, run, 1000);
    // The exporter retries a refused connection until its own deadline: the run of failures
    // ends in one EXPORT_FAILED, or in one SHUTDOWN_TIMEOUT if shutdown comes first.
    const failures = codes(run);
    t.true(failures.length >= 1 && failures.length <= 2, failures.join(', '));
    t.true(failures.filter((code) => code === 'NEMO_LENS_EXPORT_FAILED').length <= 1);
    t.true(failures.filter((code) => code === 'NEMO_LENS_SHUTDOWN_TIMEOUT').length <= 1);
  });
});
