//! String order as JavaScript's `localeCompare` gives it (ICU root collation), for the ASCII
//! that model and provider ids are made of.
//!
//! Pi sorts ids with `localeCompare`, whose order differs from byte order: punctuation sorts
//! before digits and letters (`_ - , ; : ! ? . ' " ( ) [ ] { } @ * / \ & # % ` ^ + < = > | ~ $`),
//! letters compare case-insensitively first, and only an otherwise equal pair is decided by case
//! (lower case first). Characters outside ASCII sort after all ASCII, by code point — an
//! approximation, since no id in the catalog has any.

use std::cmp::Ordering;

/// ASCII punctuation and symbols in ICU root order (space first).
const PUNCTUATION_ORDER: &str = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";

/// Primary weight: what the character is, ignoring case.
fn primary(ch: char) -> u32 {
    let punctuation = PUNCTUATION_ORDER.len() as u32;
    if let Some(index) = PUNCTUATION_ORDER.find(ch) {
        index as u32
    } else if ch.is_ascii_digit() {
        punctuation + (ch as u32 - '0' as u32)
    } else if ch.is_ascii_alphabetic() {
        punctuation + 10 + (ch.to_ascii_lowercase() as u32 - 'a' as u32)
    } else if (ch as u32) < 0x20 || ch as u32 == 0x7f {
        // Control characters come first.
        0
    } else {
        0x1000 + ch as u32
    }
}

/// Tertiary weight: lower case before upper case.
fn tertiary(ch: char) -> u8 {
    u8::from(ch.is_ascii_uppercase())
}

/// `a.localeCompare(b)` as an ordering.
pub(crate) fn locale_compare(a: &str, b: &str) -> Ordering {
    let primaries = |s: &str| s.chars().map(primary).collect::<Vec<_>>();
    primaries(a)
        .cmp(&primaries(b))
        .then_with(|| a.chars().map(tertiary).cmp(b.chars().map(tertiary)))
        .then_with(|| a.cmp(b))
}
