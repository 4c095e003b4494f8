//! The spec parser and name normalisation on arbitrary UTF-8: no panic, and the tokens are
//! what the contract says (non-empty, comma-free, stripped, lowercase, one per comma field).
#![no_main]

use libfuzzer_sys::fuzz_target;
use nemo_lens_core::normalize::{is_python_whitespace, normalize_name, strip_whitespace};
use nemo_lens_core::spec::spec_tokens;

fuzz_target!(|data: &[u8]| {
    let Ok(spec) = std::str::from_utf8(data) else {
        return;
    };
    let tokens = spec_tokens(spec);
    assert!(tokens.len() <= spec.matches(',').count() + 1);
    let fields: Vec<String> = spec
        .split(',')
        .map(normalize_name)
        .filter(|t| !t.is_empty())
        .collect();
    assert_eq!(tokens, fields);
    for token in &tokens {
        assert!(!token.is_empty());
        assert!(!token.contains(','));
        assert!(!token.starts_with(is_python_whitespace) && !token.ends_with(is_python_whitespace));
        assert_eq!(strip_whitespace(token), token.as_str());
    }
    let stripped = strip_whitespace(spec);
    assert!(spec.contains(stripped));
    assert_eq!(strip_whitespace(stripped), stripped);
});
