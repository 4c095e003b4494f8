/**
 * Helpers for tests of code that uses nemo-lens: `resetTelemetry()` returns this realm to a
 * fresh state (empty registry, no spec, nothing pinned, setup flag off).
 */
import { syncGates } from './gate';
import { shared } from './global';

export function resetTelemetry(): void {
  shared.core.reset();
  syncGates();
}
