//! Splitting a span-group spec (`NEMO_LENS_SPAN_GROUPS`) into tokens.

use crate::normalize::normalize_name;

/// Split on commas only, normalise each token, drop empty ones (duplicates kept, in order).
pub fn spec_tokens(spec: &str) -> Vec<String> {
    spec.split(',')
        .map(normalize_name)
        .filter(|token| !token.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::spec_tokens;

    #[test]
    fn splits_on_commas_only() {
        assert_eq!(spec_tokens(" job , Layer "), ["job", "layer"]);
        assert_eq!(spec_tokens("job;layer"), ["job;layer"]);
        assert_eq!(spec_tokens("per step"), ["per step"]);
        assert_eq!(spec_tokens("\tjob\n"), ["job"]);
    }

    #[test]
    fn drops_empty_tokens_and_keeps_duplicates() {
        assert!(spec_tokens("").is_empty());
        assert!(spec_tokens(" , ,").is_empty());
        assert_eq!(spec_tokens("job,,job"), ["job", "job"]);
    }
}
