/** Small statistics helpers for the runner. */

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function min(values: readonly number[]): number {
  return values.reduce((a, b) => Math.min(a, b), Infinity);
}

export function max(values: readonly number[]): number {
  return values.reduce((a, b) => Math.max(a, b), -Infinity);
}

/** A number for a table: three significant digits, no exponent for the ranges we print. */
export function fmt(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return '–';
  if (value === 0) return '0';
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const decimals = Math.max(0, Math.min(3, digits - 1 - magnitude));
  return value.toFixed(decimals);
}

/** A signed difference in ns, to two decimals. */
export function fmtDelta(value: number): string {
  if (!Number.isFinite(value)) return '–';
  const text = Math.abs(value) >= 100 ? Math.abs(value).toFixed(0) : Math.abs(value).toFixed(2);
  return `${value < 0 ? '−' : '+'}${text}`;
}

export function fmtRatio(value: number): string {
  if (!Number.isFinite(value)) return '–';
  if (value >= 100) return `${value.toFixed(0)}×`;
  if (value >= 10) return `${value.toFixed(1)}×`;
  return `${value.toFixed(2)}×`;
}
