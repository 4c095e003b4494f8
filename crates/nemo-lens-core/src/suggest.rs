//! Did-you-mean suggestions for spec tokens that name nothing (`per_stpe` → `per_step`), as
//! `NEMO_LENS_SPEC_PENDING` and `nemo-lens explain` show them. The TypeScript twin
//! (`src/backends/js/suggest.ts`) applies the same rule to the same metric, so both cores
//! suggest the same names byte for byte:
//!   - the metric is the optimal string alignment distance (Damerau–Levenshtein without
//!     repeated edits of one substring: insertions, deletions, substitutions and swaps of two
//!     neighbours each cost 1), over Unicode scalar values, from `strsim`;
//!   - a candidate (a registered group or preset) is close enough when its distance is at most
//!     `max(chars, 3) / 3` of the token's length and below the token's length (rustc's rule for
//!     "a similar name exists": one edit for up to five characters, two up to eight, ...);
//!   - the closest candidate wins; ties go to the first in code-point order;
//!   - only the first [`SUGGESTION_LIMIT`] pending tokens of at most [`MAX_TOKEN_CHARS`]
//!     characters are considered, and a report computes at most [`DISTANCE_BUDGET`] distances
//!     (in token order, then candidate order), so a long spec against a registry of 100k
//!     groups stays cheap: the report path must never stall the host.

use strsim::osa_distance;

/// How many pending tokens (in spec order) are given a suggestion at most.
pub const SUGGESTION_LIMIT: usize = 20;

/// Longer tokens get no suggestion (a typo of a group name is short).
pub const MAX_TOKEN_CHARS: usize = 64;

/// How many distances one report computes at most.
pub const DISTANCE_BUDGET: usize = 100_000;

/// The largest distance at which `token` (of `chars` scalar values) gets a suggestion.
fn max_distance(chars: usize) -> usize {
    chars.max(3) / 3
}

/// The candidate closest to `token`, if one is close enough.
pub fn closest<'a>(token: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let mut unlimited = usize::MAX;
    closest_within(token, candidates, &mut unlimited)
}

/// [`closest`], computing at most `budget` distances (and counting them off it).
fn closest_within<'a>(token: &str, candidates: &[&'a str], budget: &mut usize) -> Option<&'a str> {
    let chars = token.chars().count();
    if chars > MAX_TOKEN_CHARS {
        return None;
    }
    let limit = max_distance(chars);
    let mut best: Option<(usize, &'a str)> = None;
    for &candidate in candidates {
        if candidate == token || candidate.chars().count().abs_diff(chars) > limit {
            continue;
        }
        if *budget == 0 {
            break;
        }
        *budget -= 1;
        let distance = osa_distance(token, candidate);
        if distance > limit || distance >= chars {
            continue;
        }
        let better = match best {
            None => true,
            Some((d, name)) => distance < d || (distance == d && candidate < name),
        };
        if better {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, name)| name)
}

/// `(token, suggestion)` for each of the first [`SUGGESTION_LIMIT`] pending tokens that has a
/// close group or preset name, in spec order.
pub fn suggestions(
    pending: &[String],
    groups: &[String],
    presets: &[String],
) -> Vec<(String, String)> {
    let candidates: Vec<&str> = groups.iter().chain(presets).map(String::as_str).collect();
    let mut budget = DISTANCE_BUDGET;
    pending
        .iter()
        .take(SUGGESTION_LIMIT)
        .filter_map(|token| {
            closest_within(token, &candidates, &mut budget)
                .map(|name| (token.clone(), name.to_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn near_misses_get_the_closest_name() {
        let groups = strings(&["step", "layer", "rollout"]);
        let presets = strings(&["all", "default", "per_step"]);
        let got = suggestions(
            &strings(&["per_stpe", "lyer", "stpe", "rolout", "defualt"]),
            &groups,
            &presets,
        );
        assert_eq!(
            got,
            [
                ("per_stpe", "per_step"),
                ("lyer", "layer"),
                ("stpe", "step"),
                ("rolout", "rollout"),
                ("defualt", "default")
            ]
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
        );
    }

    #[test]
    fn far_names_and_short_tokens_get_none() {
        let groups = strings(&["step", "a", "ab"]);
        assert_eq!(closest("backward", &["step", "forward"]), None); // distance 3 > 8 / 3
        assert_eq!(
            closest("b", &["a"]),
            None,
            "one edit would replace the whole token"
        );
        assert_eq!(closest("zz", &["ab"]), None);
        assert!(suggestions(&strings(&["xyz"]), &groups, &[]).is_empty());
    }

    #[test]
    fn ties_go_to_the_first_in_code_point_order_and_distance_first() {
        assert_eq!(closest("stap", &["stop", "step"]), Some("step"));
        assert_eq!(closest("stap", &["step", "stop"]), Some("step"));
        assert_eq!(
            closest("steep", &["stop", "step"]),
            Some("step"),
            "1 edit beats 2"
        );
    }

    #[test]
    fn scalar_values_not_bytes() {
        // "é" is two bytes: as bytes this would be 2 edits and get nothing.
        assert_eq!(closest("éval", &["eval"]), Some("eval"));
        // One scalar value, one edit (in UTF-16 units it would be two, over the limit of one).
        assert_eq!(closest("😀tep", &["step"]), Some("step"));
    }

    #[test]
    fn long_tokens_and_huge_registries_stay_cheap() {
        let long = "s".repeat(MAX_TOKEN_CHARS + 1);
        assert_eq!(closest(&long, &[&long[1..]]), None);
        // Every candidate passes the length filter; the budget stops the scan after
        // DISTANCE_BUDGET distances, before the one close name at the end.
        let mut groups: Vec<String> = (0..DISTANCE_BUDGET).map(|i| format!("{i:08}")).collect();
        groups.push("stepstep".to_owned());
        assert!(suggestions(&strings(&["stepstpe"]), &groups, &[]).is_empty());
        assert_eq!(
            suggestions(&strings(&["stepstpe"]), &groups[DISTANCE_BUDGET - 1..], &[]),
            [("stepstpe".to_owned(), "stepstep".to_owned())]
        );
    }

    #[test]
    fn only_the_first_tokens_are_considered() {
        let pending: Vec<String> = (0..SUGGESTION_LIMIT + 5)
            .map(|i| format!("stp{i}"))
            .collect();
        let groups: Vec<String> = (0..SUGGESTION_LIMIT + 5)
            .map(|i| format!("step{i}"))
            .collect();
        assert_eq!(suggestions(&pending, &groups, &[]).len(), SUGGESTION_LIMIT);
    }
}
