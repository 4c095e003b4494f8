/**
 * Name normalisation, exactly as the reference (Python `str.strip().lower()`).
 *
 * Neither `String.prototype.trim` nor Rust's `str::trim` is Python's strip: Python strips
 * the Unicode White_Space set plus the information separators U+001C..U+001F, and does
 * not strip U+FEFF (which JS `trim` does). The class below is that exact set.
 */
function isPythonWhitespace(unit: number): boolean {
  return (
    (unit >= 0x09 && unit <= 0x0d) ||
    (unit >= 0x1c && unit <= 0x20) ||
    unit === 0x85 ||
    unit === 0xa0 ||
    unit === 0x1680 ||
    (unit >= 0x2000 && unit <= 0x200a) ||
    unit === 0x2028 ||
    unit === 0x2029 ||
    unit === 0x202f ||
    unit === 0x205f ||
    unit === 0x3000
  );
}

export function stripWhitespace(value: string): string {
  // Every whitespace character is in the BMP, so UTF-16 units can be tested one by one.
  let start = 0;
  let end = value.length;
  while (start < end && isPythonWhitespace(value.charCodeAt(start))) start++;
  while (end > start && isPythonWhitespace(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

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
