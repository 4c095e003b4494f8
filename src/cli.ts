#!/usr/bin/env node
/**
 * The `nemo-lens` command (package.json `bin`): `npx nemo-lens explain`. It loads the libraries
 * given with --require (they register their span groups when imported, as in the job itself),
 * resolves the spec and prints what it enables; see explain.ts. Warnings (a pending token, a
 * shared group) are part of the report, not failures: the exit status is 0 whenever the report
 * was made, 1 when a --require module cannot be loaded, 2 for a usage error.
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { stripWhitespace } from './backends/js/normalize';
import { explain, observeRegistrations, type Explanation } from './explain';
import { formatExplanation } from './explain-format';

const USAGE = `Usage: nemo-lens explain [SPEC] [--require MODULE]... [--json] [--color | --no-color]

Loads each MODULE (resolved from the current directory, as node --require does; ES modules
too), then resolves SPEC (default: $NEMO_LENS_SPAN_GROUPS, else "default") against the span
groups they registered, and prints the enabled groups, each namespace's presets, the owners
of each group (shared names marked), pending tokens with did-you-mean suggestions, and the
warnings the process would print.

  -r, --require MODULE  a library (or your entry point) that registers span groups; repeatable
      --json            the report as JSON, for scripts
      --color           colour even when stdout is not a terminal (--no-color: never)
  -h, --help            this text
`;

class UsageError extends Error {}

function parse(argv: readonly string[]) {
  const [command, ...rest] = argv;
  if (command === '-h' || command === '--help' || command === 'help') return { help: true as const };
  if (command !== 'explain') throw new UsageError(command === undefined ? 'a command is needed' : `unknown command "${command}"`);
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        require: { type: 'string', short: 'r', multiple: true },
        json: { type: 'boolean' },
        color: { type: 'boolean' },
        'no-color': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.values.help) return { help: true as const };
  if (parsed.positionals.length > 1) throw new UsageError(`one spec at most (a comma-separated list), got ${parsed.positionals.length}: quote it`);
  return {
    help: false as const,
    spec: parsed.positionals[0],
    require: parsed.values.require ?? [],
    json: parsed.values.json === true,
    colour: parsed.values['no-color'] ? false : parsed.values.color ? true : undefined,
  };
}

/** Load a module the way `node --require` would from the current directory; ES modules through import(). */
async function load(request: string): Promise<void> {
  const from = createRequire(path.join(process.cwd(), 'nemo-lens-explain.cjs'));
  const resolved = from.resolve(request);
  try {
    from(resolved);
  } catch (error) {
    if ((error as NodeJS.ErrnoException | null)?.code !== 'ERR_REQUIRE_ESM') throw error;
    await import(pathToFileURL(resolved).href);
  }
}

function specFrom(argument: string | undefined): { spec: string; source: Explanation['specSource'] } {
  if (argument !== undefined) return { spec: argument, source: 'argument' };
  const env = process.env['NEMO_LENS_SPAN_GROUPS'];
  // Blank counts as unset, as NemoLensConfig.fromEnv reads it.
  if (env !== undefined && stripWhitespace(env) !== '') return { spec: env, source: 'NEMO_LENS_SPAN_GROUPS' };
  return { spec: 'default', source: 'default' };
}

function wantsColour(flag: boolean | undefined): boolean {
  if (flag !== undefined) return flag;
  return process.stdout.isTTY === true && process.stdout.hasColors() && process.env['NO_COLOR'] === undefined;
}

async function main(argv: readonly string[]): Promise<number> {
  let options;
  try {
    options = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`nemo-lens: ${error.message}.\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  // Node would print every NemoLensWarning on stderr as well; the report lists them instead.
  process.removeAllListeners('warning');
  const observed = observeRegistrations();
  try {
    for (const request of options.require) {
      try {
        await load(request);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        process.stderr.write(`nemo-lens explain: --require ${request} failed to load (from ${process.cwd()}): ${reason}\n`);
        return 1;
      }
    }
    const { spec, source } = specFrom(options.spec);
    const report = explain(spec, source, observed);
    process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatExplanation(report, wantsColour(options.colour)));
    return 0;
  } finally {
    observed.stop();
  }
}

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.stderr.write(`nemo-lens: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
