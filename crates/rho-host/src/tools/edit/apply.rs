//! Matching and applying edits to a file's text (Pi's `edit-diff.js`): line endings and BOM,
//! the fuzzy normalisation, and the exact failure texts.
//!
//! Offsets here are byte offsets into UTF-8 strings where Pi uses UTF-16 indices; both index
//! the same characters, so matches, overlaps and replacements agree.

use unicode_normalization::UnicodeNormalization;

/// One replacement asked for by the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// Text to find (must be unique in the original file).
    pub old_text: String,
    /// Its replacement.
    pub new_text: String,
}

/// Why a set of edits could not be applied; the texts are Pi's, worded for one edit or for
/// `edits[i]` of several.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The only edit has an empty `oldText`.
    #[error("oldText must not be empty in {path}.")]
    EmptyOldText {
        /// The path as given.
        path: String,
    },
    /// `edits[index]` has an empty `oldText`.
    #[error("edits[{index}].oldText must not be empty in {path}.")]
    EmptyOldTextAt {
        /// The path as given.
        path: String,
        /// The edit's position in `edits`.
        index: usize,
    },
    /// The only edit's `oldText` is not in the file.
    #[error(
        "Could not find the exact text in {path}. The old text must match exactly including all whitespace and newlines."
    )]
    NotFound {
        /// The path as given.
        path: String,
    },
    /// `edits[index]`'s `oldText` is not in the file.
    #[error(
        "Could not find edits[{index}] in {path}. The oldText must match exactly including all whitespace and newlines."
    )]
    NotFoundAt {
        /// The path as given.
        path: String,
        /// The edit's position in `edits`.
        index: usize,
    },
    /// The only edit's `oldText` occurs more than once.
    #[error(
        "Found {occurrences} occurrences of the text in {path}. The text must be unique. Please provide more context to make it unique."
    )]
    Duplicate {
        /// The path as given.
        path: String,
        /// How often it occurs (counted in the fuzzy-normalised space).
        occurrences: usize,
    },
    /// `edits[index]`'s `oldText` occurs more than once.
    #[error(
        "Found {occurrences} occurrences of edits[{index}] in {path}. Each oldText must be unique. Please provide more context to make it unique."
    )]
    DuplicateAt {
        /// The path as given.
        path: String,
        /// The edit's position in `edits`.
        index: usize,
        /// How often it occurs (counted in the fuzzy-normalised space).
        occurrences: usize,
    },
    /// Two edits match overlapping regions (first = the one matched earlier in the file).
    #[error(
        "edits[{first}] and edits[{second}] overlap in {path}. Merge them into one edit or target disjoint regions."
    )]
    Overlap {
        /// The path as given.
        path: String,
        /// Index of the edit whose match starts first.
        first: usize,
        /// Index of the edit whose match starts inside the first one's.
        second: usize,
    },
    /// The only edit leaves the file as it was.
    #[error(
        "No changes made to {path}. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected."
    )]
    NoChange {
        /// The path as given.
        path: String,
    },
    /// Several edits leave the file as it was.
    #[error("No changes made to {path}. The replacements produced identical content.")]
    NoChanges {
        /// The path as given.
        path: String,
    },
}

/// A file's line ending, remembered so the edited text can be written back with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEnding {
    /// `\n`.
    Lf,
    /// `\r\n`.
    CrLf,
}

/// `\r\n` if the first `\n` of `content` is preceded by `\r`, else `\n` (Pi's `detectLineEnding`).
pub fn detect_line_ending(content: &str) -> LineEnding {
    match (content.find("\r\n"), content.find('\n')) {
        (Some(crlf), Some(lf)) if crlf < lf => LineEnding::CrLf,
        _ => LineEnding::Lf,
    }
}

/// Turns `\r\n` and lone `\r` into `\n`.
pub fn normalize_to_lf(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Writes `text` (LF-only) back with `ending`.
pub fn restore_line_endings(text: &str, ending: LineEnding) -> String {
    match ending {
        LineEnding::Lf => text.to_owned(),
        LineEnding::CrLf => text.replace('\n', "\r\n"),
    }
}

/// Splits a leading byte-order mark off `content`: `(bom, rest)`.
pub fn strip_bom(content: &str) -> (&str, &str) {
    match content.strip_prefix('\u{FEFF}') {
        Some(rest) => ("\u{FEFF}", rest),
        None => ("", content),
    }
}

/// Whether JavaScript's `trimEnd` removes `c` (its WhiteSpace and LineTerminator sets, which
/// differ from Rust's `char::is_whitespace`: U+FEFF yes, U+0085 no).
fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{B}' | '\u{C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// The ASCII stand-in for smart quotes, Unicode dashes and special spaces.
fn fold_char(c: char) -> char {
    match c {
        '\u{2018}'..='\u{201B}' => '\'',
        '\u{201C}'..='\u{201F}' => '"',
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        other => other,
    }
}

/// Pi's `normalizeForFuzzyMatch`: NFKC, trailing whitespace stripped from every line, then
/// smart quotes, dashes and special spaces folded to ASCII.
pub fn normalize_for_fuzzy_match(text: &str) -> String {
    let nfkc: String = text.nfkc().collect();
    let mut out = String::with_capacity(nfkc.len());
    for (i, line) in nfkc.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.extend(
            line.trim_end_matches(is_js_whitespace)
                .chars()
                .map(fold_char),
        );
    }
    out
}

/// How `old_text` is found in the original content (Pi's `fuzzyFindText`, used to decide
/// whether the whole call works in the fuzzy-normalised space).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Match {
    /// Found as it is.
    Exact,
    /// Found only after fuzzy-normalising both sides.
    Fuzzy,
    /// Not found either way.
    Missing,
}

/// Exact search first, then in the fuzzy-normalised space.
fn classify(content: &str, old_text: &str) -> Match {
    if content.contains(old_text) {
        Match::Exact
    } else if normalize_for_fuzzy_match(content).contains(&normalize_for_fuzzy_match(old_text)) {
        Match::Fuzzy
    } else {
        Match::Missing
    }
}

/// Finds `old_text` in `base` as `(offset, length)`. When `base` is already fuzzy-normalised,
/// a miss is retried with `old_text` normalised: Pi re-normalises `base` too, which changes
/// nothing (the normalisation is idempotent), and searching `base` itself keeps every offset
/// on a character boundary of the text that is spliced.
fn find_in_base(base: &str, old_text: &str, base_is_fuzzy: bool) -> Option<(usize, usize)> {
    if let Some(offset) = base.find(old_text) {
        return Some((offset, old_text.len()));
    }
    if !base_is_fuzzy {
        return None;
    }
    let fuzzy_old = normalize_for_fuzzy_match(old_text);
    base.find(&fuzzy_old)
        .map(|offset| (offset, fuzzy_old.len()))
}

/// Occurrences of `old_text` in `content`, both fuzzy-normalised, counted like JavaScript's
/// `split(x).length - 1` (non-overlapping; an empty pattern splits between UTF-16 units).
fn count_occurrences(content: &str, old_text: &str) -> usize {
    let fuzzy_content = normalize_for_fuzzy_match(content);
    let fuzzy_old = normalize_for_fuzzy_match(old_text);
    if fuzzy_old.is_empty() {
        return fuzzy_content.encode_utf16().count().saturating_sub(1);
    }
    fuzzy_content.matches(fuzzy_old.as_str()).count()
}

/// The content edits were matched against, and the content after applying them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The original (LF-normalised) content, or its fuzzy-normalised form when any edit needed
    /// fuzzy matching.
    pub base: String,
    /// `base` with every edit applied.
    pub new: String,
}

/// Applies `edits` to LF-normalised `content`, each matched against the original content
/// (Pi's `applyEditsToNormalizedContent`). If any edit needs fuzzy matching, all of them are
/// matched and applied in the fuzzy-normalised content. `path` is only used in error texts.
pub fn apply_edits(content: &str, edits: &[Edit], path: &str) -> Result<Applied, EditError> {
    let several = edits.len() != 1;
    let path = || path.to_owned();
    let edits: Vec<Edit> = edits
        .iter()
        .map(|edit| Edit {
            old_text: normalize_to_lf(&edit.old_text),
            new_text: normalize_to_lf(&edit.new_text),
        })
        .collect();
    if let Some(index) = edits.iter().position(|edit| edit.old_text.is_empty()) {
        return Err(if several {
            EditError::EmptyOldTextAt {
                path: path(),
                index,
            }
        } else {
            EditError::EmptyOldText { path: path() }
        });
    }

    let any_fuzzy = edits
        .iter()
        .any(|edit| classify(content, &edit.old_text) == Match::Fuzzy);
    let base = if any_fuzzy {
        normalize_for_fuzzy_match(content)
    } else {
        content.to_owned()
    };

    // (match offset, match length, edit index)
    let mut matches: Vec<(usize, usize, usize)> = Vec::with_capacity(edits.len());
    for (index, edit) in edits.iter().enumerate() {
        let Some((offset, len)) = find_in_base(&base, &edit.old_text, any_fuzzy) else {
            return Err(if several {
                EditError::NotFoundAt {
                    path: path(),
                    index,
                }
            } else {
                EditError::NotFound { path: path() }
            });
        };
        let occurrences = count_occurrences(&base, &edit.old_text);
        if occurrences > 1 {
            return Err(if several {
                EditError::DuplicateAt {
                    path: path(),
                    index,
                    occurrences,
                }
            } else {
                EditError::Duplicate {
                    path: path(),
                    occurrences,
                }
            });
        }
        matches.push((offset, len, index));
    }

    matches.sort_by_key(|&(offset, _, _)| offset);
    for pair in matches.windows(2) {
        let (previous, current) = (pair[0], pair[1]);
        if previous.0 + previous.1 > current.0 {
            return Err(EditError::Overlap {
                path: path(),
                first: previous.2,
                second: current.2,
            });
        }
    }

    // Built front to back from the disjoint, sorted matches: the same text as Pi's
    // back-to-front splicing, without re-copying the tail for every edit.
    let mut new = String::with_capacity(base.len());
    let mut cursor = 0;
    for &(offset, len, index) in &matches {
        new.push_str(base.get(cursor..offset).unwrap_or_default());
        new.push_str(&edits[index].new_text);
        cursor = offset + len;
    }
    new.push_str(base.get(cursor..).unwrap_or_default());

    if new == base {
        return Err(if several {
            EditError::NoChanges { path: path() }
        } else {
            EditError::NoChange { path: path() }
        });
    }
    Ok(Applied { base, new })
}
