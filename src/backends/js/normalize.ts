/**
 * Name normalisation, exactly as the reference (Python `str.strip().lower()`). The
 * whitespace set is shared with the config reader (src/whitespace.ts).
 */
import { stripWhitespace } from '../../whitespace';

export { stripWhitespace };

/** Group names, preset names, preset members and spec tokens: strip, then full Unicode lowercase. */
export function normalizeName(value: string): string {
  return stripWhitespace(value).toLowerCase();
}

/** Split a spec on commas only, normalise each token, drop empty ones (duplicates kept, in order). */
export function specTokens(spec: string): string[] {
  const tokens: string[] = [];
  for (const raw of spec.split(',')) {
    const token = normalizeName(raw);
    if (token !== '') tokens.push(token);
  }
  return tokens;
}

/** Code-point order, as Python and Rust sort strings (JS's default sort compares UTF-16 units). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}
