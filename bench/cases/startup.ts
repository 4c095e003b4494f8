/**
 * Start-up: how long `require()` of the package takes in a fresh `node` process, against
 * `@opentelemetry/api` alone (which every user of nemo-lens loads anyway). Each repetition is
 * a new process running plain node (no tsx: its loader would be timed too); the child times
 * its own `require` with hrtime, and the runner also times the whole process.
 */
import * as path from 'node:path';

import { ROOT, distDir } from '../lib/package';

export interface StartupTarget {
  readonly name: string;
  readonly label: string;
  /** Absolute paths given to require(), in order; undefined for the empty process. */
  readonly request: string | readonly string[] | undefined;
  readonly env?: Readonly<Record<string, string>>;
}

export function startupTargets(): StartupTarget[] {
  return [
    { name: 'node', label: 'node, nothing required', request: undefined },
    { name: 'otel-api', label: '`@opentelemetry/api`', request: require.resolve('@opentelemetry/api', { paths: [ROOT] }) },
    { name: 'nemo-lens', label: '`nemo-lens` (native core)', request: path.join(distDir(), 'index.js') },
    { name: 'nemo-lens-js', label: '`nemo-lens` (NEMO_LENS_BACKEND=js)', request: path.join(distDir(), 'index.js'), env: { NEMO_LENS_BACKEND: 'js' } },
    {
      // Not a way to use the package today: what its import would cost if the telemetry stack
      // (SDK, exporters) were loaded on first use instead of by index.js.
      name: 'nemo-lens-core-modules',
      label: '`nemo-lens` registry, gate, span and warning modules only (no telemetry stack)',
      request: ['registry.js', 'gate.js', 'span.js', 'attributes.js', 'warnings.js'].map((file) => path.join(distDir(), file)),
    },
  ];
}

/** The `node -e` program of one repetition: prints the nanoseconds its require() took. */
export function startupScript(target: StartupTarget): string {
  if (target.request === undefined) return 'process.stdout.write("0")';
  const requests = typeof target.request === 'string' ? [target.request] : target.request;
  return [
    'const t0 = process.hrtime.bigint();',
    ...requests.map((request) => `require(${JSON.stringify(request)});`),
    'const t1 = process.hrtime.bigint();',
    'process.stdout.write(String(t1 - t0));',
  ].join('\n');
}
