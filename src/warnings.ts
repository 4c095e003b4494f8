/**
 * Warning delivery: `process.emitWarning` (type `NemoLensWarning`, with a code) so warnings
 * are visible by default and follow Node's conventions, and, synchronously, every
 * `onWarning` listener of this realm. Delivery never throws into the caller.
 */
import type { Diagnostic } from './backends/types';
import { NemoLensTypeError, describe } from './errors';
import { shared } from './global';

export interface NemoLensWarning {
  readonly code: string;
  readonly message: string;
}

export type WarningListener = (warning: NemoLensWarning) => void;

/** Subscribe to every nemo-lens warning of this realm; returns the unsubscribe function. */
export function onWarning(listener: WarningListener): () => void {
  if (typeof listener !== 'function') {
    throw new NemoLensTypeError(`nemo-lens: onWarning(listener) needs a function, got ${describe(listener)}.`);
  }
  const entry = { listener };
  shared.listeners.add(entry);
  return () => {
    shared.listeners.delete(entry);
  };
}

export function emitWarnings(warnings: readonly Diagnostic[]): void {
  for (const warning of warnings) emitWarning(warning.code, warning.message);
}

export function emitWarning(code: string, message: string): void {
  const warning: NemoLensWarning = { code, message };
  for (const { listener } of [...shared.listeners]) {
    try {
      listener(warning);
    } catch {
      // A listener's bug must not break the registration or setup that warned.
    }
  }
  try {
    process.emitWarning(message, { type: 'NemoLensWarning', code });
  } catch {
    // Telemetry never takes the host down, even with a patched or frozen `process`.
  }
}
