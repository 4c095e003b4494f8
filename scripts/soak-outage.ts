/**
 * The long version of __test__/telemetry-outage.spec.ts, as issue 9 measured it: a job
 * emitting 200 spans a second for 40 s while the collector (a real process) refuses for the
 * first 30 s (HTTP 503), then accepts. Prints spans made and delivered, the requests refused,
 * the peak RSS of the job (main thread and export worker) and its warnings.
 *
 *     npm run soak:outage
 *     npm run soak:outage -- --outage 60 --seconds 70 --rate 500
 *
 * Exit code 1 unless every span is delivered.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { parseArgs } from 'node:util';

import { startCollector } from '../__test__/helpers/collector';

const { values } = parseArgs({
  options: {
    outage: { type: 'string', default: '30' },
    seconds: { type: 'string', default: '40' },
    rate: { type: 'string', default: '200' },
  },
});
const CHILD = path.join(__dirname, '..', '__test__', 'helpers', 'outage-child.ts');

async function main(): Promise<number> {
  const collector = await startCollector('503');
  try {
    const child = spawn(process.execPath, ['--import=tsx', CHILD], {
      env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OUTAGE_RATE: values.rate, OUTAGE_SECONDS: values.seconds, OUTAGE_SHUTDOWN_MS: '60000' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await new Promise((resolve) => setTimeout(resolve, Number(values.outage) * 1000));
    const refused = (await collector.stats()).requests;
    await collector.setMode('ok');
    const recoveredAt = Date.now();
    const status = await exited;
    const report = JSON.parse(stdout.trim()) as { made: number; rssPeakMiB: number; shutdownMs: number; warnings: Record<string, number> };
    const { accepted } = await collector.stats();
    process.stdout.write(
      `soak:outage: ${values.outage} s outage at ${values.rate} spans/s: ${accepted} of ${report.made} spans delivered; ` +
        `${refused} requests refused during the outage; job exited ${status} ${Date.now() - recoveredAt} ms after the recovery; ` +
        `peak RSS ${report.rssPeakMiB} MiB; warnings ${JSON.stringify(report.warnings)}\n`,
    );
    return accepted === report.made && status === 0 ? 0 : 1;
  } finally {
    await collector.kill();
  }
}

main().then((code) => process.exit(code), (error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
