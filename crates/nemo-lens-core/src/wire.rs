//! Lists of names as one text plus lengths, the shape the napi binding passes them in: one
//! JS string and one `Uint32Array` cross the boundary instead of one napi value per name.
//! Lengths count UTF-16 code units, so that JavaScript can cut the text with `slice`.

use std::borrow::Cow;
use std::fmt;

/// Names one after the other in `text`; `lengths[i]` is the i-th name's length in UTF-16 units.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Packed {
    pub text: String,
    pub lengths: Vec<u32>,
}

impl Packed {
    pub fn with_capacity(names: usize) -> Self {
        Self {
            text: String::new(),
            lengths: Vec::with_capacity(names),
        }
    }

    pub fn push(&mut self, name: &str) {
        self.text.push_str(name);
        self.lengths.push(utf16_len(name));
    }

    /// A count or other number in `lengths` (a header the reader knows to skip).
    pub fn push_number(&mut self, value: usize) {
        self.lengths
            .push(u32::try_from(value).expect("counts stay below 2^32"));
    }
}

impl<'a> FromIterator<&'a str> for Packed {
    fn from_iter<I: IntoIterator<Item = &'a str>>(names: I) -> Self {
        let names = names.into_iter();
        let mut packed = Self::with_capacity(names.size_hint().0);
        names.for_each(|name| packed.push(name));
        packed
    }
}

/// Length in UTF-16 code units.
pub fn utf16_len(name: &str) -> u32 {
    let units = if name.is_ascii() {
        name.len()
    } else {
        name.chars().map(char::len_utf16).sum()
    };
    u32::try_from(units).expect("names stay below 2^32 units")
}

/// The lengths do not add up to the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadLengths;

impl fmt::Display for BadLengths {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("nemo-lens: the packed names do not match their lengths")
    }
}

impl std::error::Error for BadLengths {}

/// Cut `text` into consecutive names of the given UTF-16 lengths, which must cover it exactly.
///
/// `text` is the UTF-8 copy of a JS string that joined the names. Where a name ended with a
/// lone high surrogate and the next began with a lone low one, the join made a pair (one
/// 4-byte char here, the cut falling inside it); each name then gets U+FFFD for its half,
/// exactly what converting the two names one by one gives (napi replaces lone surrogates).
pub fn split_utf16<'t>(text: &'t str, lengths: &[u32]) -> Result<Vec<Cow<'t, str>>, BadLengths> {
    let mut names = Vec::with_capacity(lengths.len());
    let mut rest = text;
    // The previous name took the first half of a pair: this one starts with U+FFFD.
    let mut half_taken = false;
    for &length in lengths {
        let mut units = length as usize;
        let prefix = half_taken && units > 0;
        if half_taken {
            if units == 0 {
                return Err(BadLengths);
            }
            units -= 1;
            half_taken = false;
        }
        // ASCII: one byte per unit.
        let end = if rest.len() >= units && rest.as_bytes()[..units].is_ascii() {
            units
        } else {
            let mut end = 0;
            let mut chars = rest.chars();
            while units > 0 {
                let c = chars.next().ok_or(BadLengths)?;
                if c.len_utf16() > units {
                    half_taken = true;
                    break;
                }
                units -= c.len_utf16();
                end += c.len_utf8();
            }
            end
        };
        let (name, after) = rest.split_at(end);
        rest = after;
        names.push(if prefix || half_taken {
            let mut owned = String::with_capacity(name.len() + 6);
            if prefix {
                owned.push('\u{fffd}');
            }
            owned.push_str(name);
            if half_taken {
                owned.push('\u{fffd}');
                // Skip the pair: the next name starts after it.
                let pair = rest.chars().next().ok_or(BadLengths)?;
                rest = &rest[pair.len_utf8()..];
            }
            Cow::Owned(owned)
        } else {
            Cow::Borrowed(name)
        });
    }
    if rest.is_empty() && !half_taken {
        Ok(names)
    } else {
        Err(BadLengths)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_any_names() {
        let names = ["step", "", "ΟΔΟΣ", "😀x", "a,b", "\0", "İ"];
        let packed: Packed = names.iter().copied().collect();
        assert_eq!(packed.lengths, [4, 0, 4, 3, 3, 1, 1]);
        let split = split_utf16(&packed.text, &packed.lengths).unwrap();
        assert_eq!(split, names);
        assert!(split.iter().all(|name| matches!(name, Cow::Borrowed(_))));
    }

    #[test]
    fn a_pair_made_by_the_join_becomes_two_replacement_characters() {
        // JS: ['a\uD83D', '\uDE00b'].join('') is 'a😀b'.
        let split = split_utf16("a😀b", &[2, 2]).unwrap();
        assert_eq!(split, ["a\u{fffd}", "\u{fffd}b"]);
        let split = split_utf16("😀", &[1, 1]).unwrap();
        assert_eq!(split, ["\u{fffd}", "\u{fffd}"]);
    }

    #[test]
    fn refuses_lengths_that_do_not_cover_the_text() {
        assert_eq!(split_utf16("abc", &[1, 1]), Err(BadLengths));
        assert_eq!(split_utf16("abc", &[2, 2]), Err(BadLengths));
        assert_eq!(split_utf16("😀", &[1]), Err(BadLengths));
        assert_eq!(split_utf16("😀", &[1, 0]), Err(BadLengths));
        assert_eq!(split_utf16("", &[]), Ok(vec![]));
    }
}
