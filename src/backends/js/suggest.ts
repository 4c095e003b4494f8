/**
 * Did-you-mean suggestions for spec tokens that name nothing (`per_stpe` → `per_step`), as
 * `NEMO_LENS_SPEC_PENDING` and `nemo-lens explain` show them: the twin of the Rust core's
 * `crates/nemo-lens-core/src/suggest.rs`, which the differential tests compare byte for byte.
 *   - The metric is the optimal string alignment distance (Damerau–Levenshtein without repeated
 *     edits of one substring), over code points. The core takes it from the `strsim` crate;
 *     it is written out here because the npm implementations do not compute the same number:
 *     `damerau-levenshtein` (the most used) stops early once the diagonal passes 4 and counts
 *     UTF-16 units, so astral characters would cost two edits here and one in the core.
 *   - A candidate (a registered group or preset) is close enough when its distance is at most
 *     `max(length, 3) / 3` and below the token's length; the closest wins, ties go to the
 *     first in code-point order; only the first SUGGESTION_LIMIT pending tokens of at most
 *     MAX_TOKEN_CHARS are considered, and a report computes at most DISTANCE_BUDGET distances
 *     (token order, then candidate order): the report path must never stall the host.
 */
import { compareCodePoints } from './normalize';

/** How many pending tokens (in spec order) are given a suggestion at most. */
export const SUGGESTION_LIMIT = 20;

/** Longer tokens get no suggestion (a typo of a group name is short). */
export const MAX_TOKEN_CHARS = 64;

/** How many distances one report computes at most. */
export const DISTANCE_BUDGET = 100_000;

/** Optimal string alignment distance between two sequences of code points (strsim's `osa_distance`). */
export function osaDistance(a: readonly string[], b: readonly string[]): number {
  let twoAgo: number[] = Array.from({ length: b.length + 1 }, (_, j) => j);
  let previous: number[] = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current: number[] = new Array<number>(b.length + 1).fill(0);
  for (let i = 0; i < a.length; i++) {
    current[0] = i + 1;
    for (let j = 0; j < b.length; j++) {
      const cost = a[i] === b[j] ? 0 : 1;
      current[j + 1] = Math.min(current[j]! + 1, previous[j + 1]! + 1, previous[j]! + cost);
      if (i > 0 && j > 0 && a[i] !== b[j] && a[i] === b[j - 1] && b[j] === a[i - 1]) {
        current[j + 1] = Math.min(current[j + 1]!, twoAgo[j - 1]! + 1);
      }
    }
    [twoAgo, previous, current] = [previous, current, twoAgo];
  }
  return previous[b.length]!;
}

/** The candidate closest to `token`, if one is close enough; `budget.left` distances at most (counted off). */
export function closest(token: string, candidates: readonly string[], budget = { left: Infinity }): string | undefined {
  const chars = Array.from(token);
  if (chars.length > MAX_TOKEN_CHARS) return undefined;
  const limit = Math.floor(Math.max(chars.length, 3) / 3);
  let best: { distance: number; name: string } | undefined;
  for (const candidate of candidates) {
    if (candidate === token) continue;
    const other = Array.from(candidate);
    if (Math.abs(other.length - chars.length) > limit) continue;
    if (budget.left === 0) break;
    budget.left--;
    const distance = osaDistance(chars, other);
    if (distance > limit || distance >= chars.length) continue;
    if (best === undefined || distance < best.distance || (distance === best.distance && compareCodePoints(candidate, best.name) < 0)) {
      best = { distance, name: candidate };
    }
  }
  return best?.name;
}

/** `[token, suggestion]` for each of the first SUGGESTION_LIMIT pending tokens that has a close group or preset name, in spec order. */
export function suggestions(pending: readonly string[], groups: readonly string[], presets: readonly string[]): Array<[string, string]> {
  const candidates = [...groups, ...presets];
  const found: Array<[string, string]> = [];
  const budget = { left: DISTANCE_BUDGET };
  for (const token of pending.slice(0, SUGGESTION_LIMIT)) {
    const name = closest(token, candidates, budget);
    if (name !== undefined) found.push([token, name]);
  }
  return found;
}
