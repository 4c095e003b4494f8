/**
 * The installed package under Bun and Deno (both installed from the npm registry as this
 * checkout's devDependencies): consumer/runtime-smoke.mjs imports, registers, resolves and
 * gates, and with `setup` exports a span through an in-memory setup.
 *
 * Deno runs first with no permission at all (importing must need none: a refused env read is
 * unset, the native loader's refusal is a fallback), then with the permissions README
 * "Bundlers and runtimes" documents: `--allow-env --allow-sys=hostname --allow-read` for a
 * setup (config and resource attributes from the environment, `host.name`, the deployment
 * detection's file checks), and `--allow-env --allow-read --allow-ffi` for the native core
 * (napi-rs's loader reads env and /usr/bin/ldd, then dlopens).
 */
import * as path from 'node:path';
import { run } from './exec';
import { ROOT } from './paths';

const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

/** No network of their own: Deno's update check and prompts, Bun's crash reports and telemetry. */
const QUIET = { NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1', DENO_NO_PROMPT: '1', DO_NOT_TRACK: '1' };

export interface RuntimeCase {
  readonly runtime: 'bun' | 'deno';
  readonly flags: readonly string[];
  readonly expected: 'native' | 'js';
  readonly setup: boolean;
}

export function runtimeCases(withBinary: boolean): RuntimeCase[] {
  const native = withBinary ? 'native' : 'js';
  return [
    { runtime: 'bun', flags: [], expected: native, setup: false },
    { runtime: 'bun', flags: [], expected: native, setup: true },
    { runtime: 'deno', flags: [], expected: 'js', setup: false },
    { runtime: 'deno', flags: ['--allow-env', '--allow-sys=hostname', '--allow-read'], expected: 'js', setup: true },
    { runtime: 'deno', flags: ['--allow-env', '--allow-read', '--allow-ffi'], expected: native, setup: false },
  ];
}

/** Run every case in `dir`; returns one summary line per case. Throws on the first failure. */
export function checkRuntimes(dir: string, withBinary: boolean, env: NodeJS.ProcessEnv): string[] {
  const lines: string[] = [];
  const versions = new Map<string, string>();
  for (const { runtime, flags, expected, setup } of runtimeCases(withBinary)) {
    if (!versions.has(runtime)) versions.set(runtime, run(bin(runtime), ['--version'], { cwd: dir, env: { ...env, ...QUIET } }).stdout.trim().split('\n')[0]!);
    const args = runtime === 'deno' ? ['run', '--quiet', ...flags] : [];
    const script = ['runtime-smoke.mjs', expected, ...(setup ? ['setup'] : [])];
    const result = run(bin(runtime), [...args, ...script], { cwd: dir, env: { ...env, ...QUIET } });
    const shown = [runtime, ...args, ...script].join(' ');
    lines.push(`${versions.get(runtime)}: \`${shown}\`: ${result.stdout.trim().split('\n').pop()}`);
  }
  return lines;
}
