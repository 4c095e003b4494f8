/**
 * Reading the environment without taking the host down. Deno without `--allow-env` throws
 * (NotCapable) on a read of `process.env`: a refused read counts as unset, so importing
 * nemo-lens and gating sites need no permission at all. (`setupTelemetry` reads its
 * configuration from the environment and so needs `--allow-env`; see README "Bundlers and
 * runtimes".) The type is a plain record, not Node's process-env type, so that the shipped
 * declarations need no Node types.
 */
export type Env = Readonly<Record<string, string | undefined>>;

/** `env[name]` (default `process.env`), or undefined when the runtime refuses the read. */
export function readEnv(name: string, env?: Env): string | undefined {
  try {
    return (env ?? process.env)[name];
  } catch {
    return undefined;
  }
}
