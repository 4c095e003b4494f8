/** Run a command to completion; on failure, throw an error that says what ran, where, and its output. */
import { spawnSync } from 'node:child_process';

export interface RunOptions {
  readonly cwd: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Exit codes other than 0 that are not a failure (the result reports the code). */
  readonly allowFailure?: boolean;
}

export interface RunResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

export class CommandError extends Error {
  constructor(
    message: string,
    readonly result: RunResult,
  ) {
    super(message);
    this.name = 'CommandError';
  }
}

export function run(command: string, args: readonly string[], options: RunOptions): RunResult {
  const started = performance.now();
  const child = spawnSync(command, args, {
    cwd: options.cwd,
    env: options.env ?? (command === 'npm' ? npmEnv() : process.env),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const result: RunResult = {
    status: child.status ?? -1,
    stdout: child.stdout ?? '',
    stderr: child.stderr ?? '',
    ms: Math.round(performance.now() - started),
  };
  if (child.error) {
    throw new CommandError(`could not start \`${command}\` (in ${options.cwd}): ${child.error.message}`, result);
  }
  if (result.status !== 0 && !options.allowFailure) {
    const why = child.signal ? `was killed by ${child.signal}` : `exited with ${result.status}`;
    throw new CommandError(
      `\`${[command, ...args].join(' ')}\` ${why} (in ${options.cwd})\n${indent(tail(result.stdout + result.stderr))}`,
      result,
    );
  }
  return result;
}

/** The Node binary running this script, for child Node processes of the same version. */
export const NODE = process.execPath;

/**
 * The environment for a child npm: this one without the `npm_*` variables an enclosing
 * `npm run` sets (`npm_config_local_prefix` would point a nested install at this checkout),
 * keeping the settings that say where the cache, config files and registry are.
 */
export function npmEnv(): NodeJS.ProcessEnv {
  const keep = new Set(['cache', 'userconfig', 'globalconfig', 'registry', 'cafile', 'proxy', 'https_proxy', 'noproxy'].map((key) => `npm_config_${key}`));
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_') || keep.has(key.toLowerCase())));
}

function tail(text: string, lines = 40): string {
  const all = text.trimEnd().split('\n');
  return (all.length > lines ? ['…', ...all.slice(-lines)] : all).join('\n');
}

function indent(text: string): string {
  return text.replace(/^/gm, '  | ');
}
