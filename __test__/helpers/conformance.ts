/**
 * Runs the conformance vectors (recorded from the reference Python implementation, copied
 * into fixtures/conformance) through the public API of whichever backend this process runs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface Expected {
  error: string | null;
  warnings: Array<{ code: string; mentions: string[] }>;
  state: {
    groups: string[];
    namespaces: string[];
    presets: Record<string, string[]>;
    enabled: string[];
    pending: string[];
  };
  resolved?: { enabled: string[]; pending: string[] };
  isEnabled?: Record<string, boolean>;
}

export type Step =
  | { op: 'register'; namespace: string; groups: string[]; presets?: Record<string, string[]>; allowOverride?: boolean; expect: Expected }
  | { op: 'unregister'; namespace: string; expect: Expected }
  | { op: 'clear'; expect: Expected }
  | { op: 'setSpec'; spec: string; expect: Expected }
  | { op: 'setup'; spec: string; expect: Expected }
  | { op: 'pin'; groups: string[]; expect: Expected }
  | { op: 'resolve'; spec: string; expect: Expected }
  | { op: 'isEnabled'; names: string[]; expect: Expected };

export interface Vector {
  name: string;
  source: string;
  steps: Step[];
}

export type VectorFile = 'registry.json' | 'registry-random.json' | 'registry-extra.json';

export function loadVectors(file: VectorFile): Vector[] {
  const text = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'conformance', file), 'utf8');
  // registry-extra.json spells format 1 out as text; the vectors are the same shape.
  const parsed = JSON.parse(text) as { format: number | string; vectors: Vector[] };
  if (parsed.format !== 1 && parsed.format !== 'nemo-lens conformance vectors v1') throw new Error(`unknown conformance format ${parsed.format}`);
  return parsed.vectors;
}

/** Code-point order, as the reference sorts. */
export function sorted(values: Iterable<string>): string[] {
  return [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
