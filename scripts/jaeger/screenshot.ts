/**
 * `npm run screenshot:jaeger [out.png]`: the picture of the demo's trace in the README.
 * Starts Jaeger (scripts/jaeger/build.sh's binary) on free ports, runs the demo exporting to
 * it over http/protobuf, reads the trace back through Jaeger's query API, and photographs it
 * with Debian's headless Chromium (`apt-get install chromium`), driven by playwright-core.
 *
 * The real Jaeger UI is jaeger-ui's built assets, served through the query extension's
 * `ui.assets_path`; the Go build embeds only a placeholder page, and no package registry
 * carries a built jaeger-ui (npm's `jaeger-ui` name has no versions, `@jaegertracing/jaeger-ui`
 * does not exist; checked 2026-12). So:
 *   - with NEMO_LENS_JAEGER_UI=<a built jaeger-ui folder>, it captures the real UI's trace page;
 *   - without it, it draws the trace from Jaeger's API data (scripts/jaeger/timeline.ts), in the
 *     layout of the UI's trace view, and the picture says so.
 * Run on demand (not in CI). Network: 127.0.0.1 only; Chromium's background traffic is off.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

import { chromium } from 'playwright-core';

import { jaegerVersion, startJaeger, type Jaeger } from '../../__test__/helpers/jaeger';
import type { DecodedSpan } from '../../__test__/helpers/protobuf';
import { renderTimeline } from './timeline';

const ROOT = path.join(__dirname, '..', '..');
const OUT = path.resolve(process.argv[2] ?? path.join(__dirname, 'demo-trace.png'));
const CHROMIUM = process.env['NEMO_LENS_CHROMIUM'] || '/usr/bin/chromium';
const UI_ASSETS = process.env['NEMO_LENS_JAEGER_UI']?.trim();
// As this kind of machine needs them: without the background-networking flags Chromium keeps
// trying hosts it cannot reach. --headless comes from `headless: true`, --user-data-dir from
// launchPersistentContext (a fresh temp folder).
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const run = promisify(execFile);

/** The demo, as `npm run demo` runs it, exporting to Jaeger; returns its trace id. */
async function runDemo(jaeger: Jaeger): Promise<string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => key === 'NEMO_LENS_BACKEND' || !/^(OTEL_|NEMO_LENS_)/.test(key)));
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'examples', 'demo', 'main.ts')], {
    cwd: ROOT,
    env: { ...env, NEMO_LENS_DEMO_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpHttpUrl, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
    timeout: 120_000,
  });
  const traceId = /look for trace ([0-9a-f]{32})/.exec(stdout)?.[1];
  if (!traceId) throw new Error(`the demo printed no trace id:\n${stdout}`);
  return traceId;
}

/** Jaeger stores asynchronously: wait until the span count stops growing (bounded). */
async function settledTrace(jaeger: Jaeger, traceId: string): Promise<DecodedSpan[]> {
  let previous = -1;
  for (let attempt = 0; attempt < 50; attempt++) {
    const spans = await jaeger.trace(traceId);
    if (spans.length > 0 && spans.length === previous) return spans;
    previous = spans.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`the trace ${traceId} did not settle in Jaeger (last count ${previous})`);
}

async function main(): Promise<void> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's (apt-get update && apt-get install -y chromium), or set NEMO_LENS_CHROMIUM.`);
  }
  if (UI_ASSETS && !fs.existsSync(path.join(UI_ASSETS, 'index.html'))) {
    throw new Error(`NEMO_LENS_JAEGER_UI=${UI_ASSETS} has no index.html: point it at a built jaeger-ui (packages/jaeger-ui/build).`);
  }
  const jaeger = await startJaeger(UI_ASSETS ? { uiAssetsPath: path.resolve(UI_ASSETS) } : {});
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'nemo-lens-chromium-'));
  try {
    const traceId = await runDemo(jaeger);
    const spans = await settledTrace(jaeger, traceId);
    console.log(`trace ${traceId}: ${spans.length} spans in Jaeger`);

    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: { width: 1400, height: 900 },
      deviceScaleFactor: 1,
    });
    try {
      const page = browser.pages()[0] ?? (await browser.newPage());
      if (UI_ASSETS) {
        await page.goto(`${jaeger.queryUrl}/trace/${traceId}`, { waitUntil: 'networkidle', timeout: 60_000 });
        await page.screenshot({ path: OUT, fullPage: true });
      } else {
        const html = renderTimeline(traceId, spans, {
          drawnFrom: `Jaeger ${jaegerVersion()}'s query API (GET /api/v3/traces/${traceId})`,
          why: 'The real UI needs jaeger-ui\'s built assets, which no package registry carries; set NEMO_LENS_JAEGER_UI to a built jaeger-ui to capture it instead.',
        });
        await page.setContent(html, { waitUntil: 'load' });
        await page.screenshot({ path: OUT, fullPage: true });
      }
    } finally {
      await browser.close();
    }
    console.log(`wrote ${path.relative(process.cwd(), OUT)} (${UI_ASSETS ? 'the Jaeger UI' : 'drawn from the Jaeger API'})`);
  } finally {
    await jaeger.stop();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
