/**
 * Whitespace as the reference strips it (Python `str.strip()`), for names and config alike.
 *
 * Neither `String.prototype.trim` nor Rust's `str::trim` is Python's strip: Python strips
 * the Unicode White_Space set plus the information separators U+001C..U+001F, and does
 * not strip U+FEFF (which JS `trim` does). A Node process and a Python process of one job
 * read the same variables, so `NEMO_LENS_ENABLED=$'\ufeff1'` must be refused by both and a
 * variable of only U+001C must count as blank in both (`__test__/config-env.spec.ts` runs the
 * reference's recorded cases). The class below is that exact set; the Rust core has the
 * same one (`crates/nemo-lens-core/src/normalize.rs`).
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

/** `value` without leading and trailing whitespace, as Python's `value.strip()`. */
export function stripWhitespace(value: string): string {
  // Every whitespace character is in the BMP, so UTF-16 units can be tested one by one.
  let start = 0;
  let end = value.length;
  while (start < end && isPythonWhitespace(value.charCodeAt(start))) start++;
  while (end > start && isPythonWhitespace(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/** True for `""` and for a string of only whitespace (Python: `not value.strip()`). */
export function isBlank(value: string): boolean {
  return stripWhitespace(value) === '';
}
