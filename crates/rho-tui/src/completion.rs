//! `@` file-path completion: the word before the cursor starting with `@` is fuzzy-matched
//! against the files under the working directory. The list of files is walked once, off the UI
//! task ([`FileIndex::walk`] is blocking; the event loop runs it with `spawn_blocking`), capped
//! at [`MAX_FILES`], and respects `.gitignore` like `git` does.

use std::path::Path;
use std::sync::Arc;

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher};

/// Most paths indexed: a huge tree must not cost the UI more than this.
pub const MAX_FILES: usize = 20_000;

/// Most suggestions shown at once.
pub const MAX_SUGGESTIONS: usize = 8;

/// The paths under the working directory, relative, `/`-separated; directories end in `/`.
/// Shallow paths first, so a short query prefers them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileIndex {
    paths: Arc<Vec<String>>,
}

impl FileIndex {
    /// An index of `paths` as given (tests, or a caller with its own walk).
    pub fn from_paths(paths: Vec<String>) -> Self {
        FileIndex {
            paths: Arc::new(paths),
        }
    }

    /// Walks `root` honouring `.gitignore`, `.ignore` and git's excludes; hidden files are
    /// listed (Pi lists them too) but `.git` is not. Blocking: call it off the UI task.
    pub fn walk(root: &Path) -> Self {
        let mut paths = Vec::new();
        let walker = ignore::WalkBuilder::new(root)
            .hidden(false)
            .require_git(false)
            .filter_entry(|entry| entry.file_name() != ".git")
            .build();
        for entry in walker.flatten() {
            if paths.len() >= MAX_FILES {
                break;
            }
            let Ok(relative) = entry.path().strip_prefix(root) else {
                continue;
            };
            if relative.as_os_str().is_empty() {
                continue;
            }
            let mut path = relative.to_string_lossy().replace('\\', "/");
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                path.push('/');
            }
            paths.push(path);
        }
        paths.sort_by(|a, b| depth(a).cmp(&depth(b)).then_with(|| a.cmp(b)));
        FileIndex::from_paths(paths)
    }

    /// The best matches of `query`, best first, at most [`MAX_SUGGESTIONS`].
    pub fn matches(&self, query: &str) -> Vec<String> {
        if query.is_empty() {
            return self.paths.iter().take(MAX_SUGGESTIONS).cloned().collect();
        }
        let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
        let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
        pattern
            .match_list(self.paths.iter(), &mut matcher)
            .into_iter()
            .take(MAX_SUGGESTIONS)
            .map(|(path, _)| path.clone())
            .collect()
    }
}

fn depth(path: &str) -> usize {
    path.trim_end_matches('/').matches('/').count()
}

/// The list under the editor while an `@` word is being typed.
#[derive(Clone, Debug, PartialEq)]
pub struct Completion {
    /// Byte offset of the `@` in the editor's text.
    pub start: usize,
    /// What follows the `@`, up to the cursor.
    pub query: String,
    /// The suggestions, best first.
    pub items: Vec<String>,
    /// The highlighted suggestion.
    pub selected: usize,
}

impl Completion {
    /// The highlighted path, if any.
    pub fn current(&self) -> Option<&str> {
        self.items.get(self.selected).map(String::as_str)
    }
}

/// The `@` word ending at `cursor`: its byte offset and the text after the `@` (after `@"` for a
/// quoted path, which may hold spaces until its closing quote). The `@` must start the text or
/// follow whitespace (so `a@b.c` is not a file reference).
pub fn at_word(text: &str, cursor: usize) -> Option<(usize, &str)> {
    let before = text.get(..cursor)?;
    if let Some(quoted) = open_quoted_word(before) {
        return Some(quoted);
    }
    let start = before.rfind(char::is_whitespace).map_or(0, |i| {
        i + before[i..].chars().next().map_or(1, char::len_utf8)
    });
    let word = &before[start..];
    let query = word.strip_prefix('@')?;
    Some((start, query))
}

/// The last `@"` word of `before` whose quote is still open.
fn open_quoted_word(before: &str) -> Option<(usize, &str)> {
    let (start, _) = before.rmatch_indices("@\"").find(|&(i, _)| {
        before[..i]
            .chars()
            .next_back()
            .is_none_or(char::is_whitespace)
    })?;
    let query = &before[start + 2..];
    (!query.contains(['"', '\n'])).then_some((start, query))
}

/// What replaces the `@` word when `path` is accepted, and how many bytes before its end the
/// cursor goes. As in Pi, a path with a space (or a word typed as `@"…`) is quoted: `@"a b" `; a
/// file ends the word with a space, a directory keeps the cursor inside (before a closing
/// quote) so its contents are listed next.
pub fn accepted_text(path: &str, quoted: bool) -> (String, usize) {
    let directory = path.ends_with('/');
    match (quoted || path.contains(' '), directory) {
        (true, true) => (format!("@\"{path}\""), 1),
        (true, false) => (format!("@\"{path}\" "), 0),
        (false, true) => (format!("@{path}"), 0),
        (false, false) => (format!("@{path} "), 0),
    }
}
