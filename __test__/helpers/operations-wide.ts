/**
 * Wider random operations than operations.ts, for the long differential run
 * (scripts/fuzz-differential.ts): names drawn from the whole of Unicode (well-formed, as the
 * facade guarantees) and from an alphabet of characters where JS, Rust and the reference are
 * most likely to disagree (whitespace sets, final sigma, multi-character lowercase mappings,
 * commas), and longer sequences over more namespaces.
 */
import fc from 'fast-check';

import { name as poolName, type Operation } from './operations';

/** Characters where normalisation differs between naive implementations. */
const TRICKY = [
  // Python whitespace (stripped) and look-alikes that are not (kept)
  ' ', '\t', '\n', '\u000b', '\u000c', '\r', '\u001c', '\u001d', '\u001e', '\u001f', '\u0085', '\u00a0', '\u1680', '\u2000',
  '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff', '\u180e', '\u200b', '\u200d',
  // case mappings: final sigma and its context, one-to-many, titlecase digraphs, astral letters
  'Σ', 'σ', 'ς', 'Α', 'a', 'A', 'Z', '\u0301', '\u0345', '\u00ad', "'", '.', '\u0130', '\u0131', 'I', 'i', 'ß', '\u1e9e', '\ufb03',
  '\u01c4', '\u01c5', '\u01c6', '\u10a0', '\u13a0', '\u{10400}', '\u{1e900}', '\u2126', '\u212a', 'K',
  // separators and names that matter to the registry
  ',', ',', ',', 'all', 'ALL', 'step', '__proto__', '😀', '\u0000',
];

const trickyString = fc.array(fc.constantFrom(...TRICKY), { maxLength: 8 }).map((parts) => parts.join(''));
const unicodeString = fc.string({ unit: 'binary', maxLength: 6 }).map((s) => s.toWellFormed());

export const wideName = fc.oneof(
  { weight: 3, arbitrary: poolName },
  { weight: 3, arbitrary: trickyString },
  { weight: 1, arbitrary: unicodeString },
);

const wideNamespace = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('mega', 'rl', 'Mega', 'gym', 'eval', '__proto__', 'constructor', ' ', '') },
  { weight: 1, arbitrary: wideName },
);

const wideSpec = fc.oneof(
  { weight: 4, arbitrary: fc.array(wideName, { maxLength: 6 }).map((parts) => parts.join(',')) },
  { weight: 1, arbitrary: trickyString },
);

export const wideOperation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('register' as const),
      namespace: wideNamespace,
      groups: fc.array(wideName, { maxLength: 6 }),
      presets: fc.option(fc.array(fc.tuple(wideName, fc.array(wideName, { maxLength: 4 })), { maxLength: 4 }), { nil: null }),
      allowOverride: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('unregister' as const), namespace: wideNamespace }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('clear' as const) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('setSpec' as const), spec: wideSpec }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('pin' as const), names: fc.array(wideName, { maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('setup' as const), done: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('resolve' as const), spec: wideSpec }) },
);
