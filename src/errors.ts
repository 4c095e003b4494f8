/**
 * Coded errors. Every error this package throws carries a stable `code`; wrong argument
 * types are `TypeError`s, registry rules are `NemoLensError`s.
 */
import type { Diagnostic } from './backends/types';

export type NemoLensErrorCode =
  | 'ERR_NEMO_LENS_INVALID_NAMESPACE'
  | 'ERR_NEMO_LENS_EMPTY_GROUP_NAME'
  | 'ERR_NEMO_LENS_RESERVED_GROUP_NAME'
  | 'ERR_NEMO_LENS_RESERVED_PRESET_NAME'
  | 'ERR_NEMO_LENS_NAMESPACE_REGISTERED'
  | 'ERR_NEMO_LENS_NAMESPACE_NOT_REGISTERED'
  | 'ERR_NEMO_LENS_INVALID_ARGUMENT'
  | 'ERR_NEMO_LENS_INVALID_CONFIG'
  | 'ERR_NEMO_LENS_ALREADY_INITIALIZED'
  | 'ERR_NEMO_LENS_NATIVE_UNAVAILABLE'
  | 'ERR_NEMO_LENS_BUNDLE_WITHOUT_REQUIRE';

export class NemoLensError extends Error {
  readonly code: NemoLensErrorCode;
  constructor(code: NemoLensErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NemoLensError';
    this.code = code;
  }
}

export class NemoLensTypeError extends TypeError {
  readonly code = 'ERR_NEMO_LENS_INVALID_ARGUMENT' as const;
  constructor(message: string) {
    super(message);
    this.name = 'NemoLensTypeError';
  }
}

/** A refusal reported by a backend, as the error the public API throws. */
export function errorFromDiagnostic(diagnostic: Diagnostic): NemoLensError {
  return new NemoLensError(diagnostic.code as NemoLensErrorCode, diagnostic.message);
}

/** Short, bounded description of a bad value for error messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an object (${Object.prototype.toString.call(value).slice(8, -1)})`;
  // What is left: a number, bigint, boolean or symbol, each shown with its type ("number 42").
  return `${typeof value} ${String(value as number | bigint | boolean | symbol)}`;
}
