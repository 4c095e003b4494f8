/** The machine a run happened on, recorded with every result. */
import { execFileSync } from 'node:child_process';
import * as os from 'node:os';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  readonly v8: string;
  readonly date: string;
  /** 1-minute load average when the run started and ended: a shared machine is noisy. */
  readonly loadAverage: { start: number; end?: number };
  readonly commit: string;
  /** `git status --porcelain` was not empty for src/ when the run started (null: git failed). */
  readonly srcDirty: boolean | null;
}

function git(args: string[], cwd: string): string | null {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

export function describeMachine(root: string): Machine {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    v8: process.versions.v8,
    date: new Date().toISOString(),
    loadAverage: { start: Math.round(os.loadavg()[0]! * 100) / 100 },
    commit: git(['rev-parse', '--short', 'HEAD'], root) || 'unknown',
    srcDirty: ((status) => (status === null ? null : status !== ''))(git(['status', '--porcelain', '--', 'src'], root)),
  };
}
