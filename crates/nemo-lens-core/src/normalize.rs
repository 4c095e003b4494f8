//! Name normalisation, exactly as the reference (Python `str.strip().lower()`).
//!
//! `str::trim` is not Python's `strip`: Python strips the Unicode White_Space set plus the
//! information separators U+001C..U+001F, which `char::is_whitespace` leaves in place.

use std::borrow::Cow;

/// The characters Python's `str.strip()` removes (those for which `str.isspace()` is true).
pub fn is_python_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{09}'..='\u{0d}'
            | '\u{1c}'..='\u{20}'
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// Strip Python whitespace from both ends.
pub fn strip_whitespace(value: &str) -> &str {
    value.trim_matches(is_python_whitespace)
}

/// Group names, preset names, preset members and spec tokens: strip, then full Unicode lowercase.
pub fn normalize_name(value: &str) -> String {
    normalize(value).into_owned()
}

/// [`normalize_name`] without a copy when the name is already normalised (ASCII with no
/// capitals and no outer whitespace: the common case, and the only one that needs no work).
pub fn normalize(value: &str) -> Cow<'_, str> {
    let stripped = strip_whitespace(value);
    if stripped
        .bytes()
        .all(|b| b.is_ascii() && !b.is_ascii_uppercase())
    {
        Cow::Borrowed(stripped)
    } else {
        Cow::Owned(stripped.to_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_python_whitespace_only() {
        assert_eq!(
            strip_whitespace(" \t\n\r\x0b\x0cstep\u{1c}\u{1d}\u{1e}\u{1f}"),
            "step"
        );
        assert_eq!(
            strip_whitespace(
                "\u{85}\u{a0}\u{1680}\u{2000}step\u{200a}\u{2028}\u{2029}\u{202f}\u{205f}\u{3000}"
            ),
            "step"
        );
        // U+FEFF and U+180E are not whitespace to Python 3 (JS trims the first).
        assert_eq!(
            strip_whitespace("\u{feff}step\u{180e}"),
            "\u{feff}step\u{180e}"
        );
        // U+200B ZERO WIDTH SPACE is not White_Space either.
        assert_eq!(strip_whitespace("\u{200b}step"), "\u{200b}step");
        assert_eq!(strip_whitespace(" in ner "), "in ner");
        assert_eq!(strip_whitespace("   "), "");
    }

    #[test]
    fn information_separators_are_what_trim_misses() {
        let separators = "\u{1c}step\u{1f}";
        assert_eq!(separators.trim(), separators);
        assert_eq!(strip_whitespace(separators), "step");
    }

    #[test]
    fn lowercases_fully() {
        assert_eq!(normalize_name("  STEP  "), "step");
        assert_eq!(normalize_name("Per_Step"), "per_step");
        // Full mappings, as Python's lower(): one char may become several.
        assert_eq!(normalize_name("\u{130}"), "i\u{307}");
        // Final sigma is context-sensitive in Python, JS and Rust alike.
        assert_eq!(normalize_name("ΟΔΟΣ"), "οδος");
        assert_eq!(normalize_name("ÉTAPE"), "étape");
    }

    #[test]
    fn borrows_what_is_already_normalised() {
        assert!(matches!(
            normalize("\tper_step "),
            Cow::Borrowed("per_step")
        ));
        assert!(matches!(normalize("Step"), Cow::Owned(_)));
        assert!(matches!(normalize("étape"), Cow::Owned(_)));
        assert_eq!(normalize("étape"), "étape");
    }
}
