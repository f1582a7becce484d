//! The ignore files Pi honours while scanning skill and prompt directories (`.gitignore`,
//! `.ignore`, `.fdignore`), accumulated from the scan root downwards: a directory's patterns are
//! prefixed with its path relative to the root, as Pi does.

use std::path::Path;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

const IGNORE_FILE_NAMES: [&str; 3] = [".gitignore", ".ignore", ".fdignore"];

/// The ignore rules in force at one point of a scan.
#[derive(Clone)]
pub(crate) struct IgnoreRules {
    builder: GitignoreBuilder,
    matcher: Gitignore,
}

impl IgnoreRules {
    /// No rules yet, for a scan rooted at `root`.
    pub(crate) fn new(root: &Path) -> Self {
        Self {
            builder: GitignoreBuilder::new(root),
            matcher: Gitignore::empty(),
        }
    }

    /// Adds the patterns of `dir`'s ignore files; `rel_dir` is `dir` relative to the root.
    pub(crate) fn add_dir(&mut self, dir: &Path, rel_dir: &str) {
        let prefix = if rel_dir.is_empty() {
            String::new()
        } else {
            format!("{rel_dir}/")
        };
        let mut added = false;
        for name in IGNORE_FILE_NAMES {
            let Ok(text) = std::fs::read_to_string(dir.join(name)) else {
                continue;
            };
            for line in text.lines() {
                if let Some(pattern) = prefix_pattern(line, &prefix) {
                    // A malformed glob is skipped, as Pi's matcher skips it.
                    added |= self.builder.add_line(None, &pattern).is_ok();
                }
            }
        }
        if added && let Ok(matcher) = self.builder.build() {
            self.matcher = matcher;
        }
    }

    /// Whether `rel_path` (relative to the root, `/`-separated) is ignored.
    pub(crate) fn ignores(&self, rel_path: &str, is_dir: bool) -> bool {
        self.matcher.matched(rel_path, is_dir).is_ignore()
    }
}

fn prefix_pattern(line: &str, prefix: &str) -> Option<String> {
    let trimmed = line.trim();
    if trimmed.is_empty() || (trimmed.starts_with('#') && !trimmed.starts_with("\\#")) {
        return None;
    }
    let (negated, pattern) = match line.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, line.strip_prefix("\\!").map_or(line, |_| &line[1..])),
    };
    let pattern = pattern.strip_prefix('/').unwrap_or(pattern);
    let prefixed = format!("{prefix}{pattern}");
    Some(if negated {
        format!("!{prefixed}")
    } else {
        prefixed
    })
}

/// The entries of `dir` sorted by name bytes (Node's `readdirSync` order), with symlinks
/// resolved to what they point at; broken links are left out.
pub(crate) fn sorted_entries(dir: &Path) -> Vec<(String, std::path::PathBuf, EntryKind)> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut entries: Vec<_> = read
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let path = e.path();
            // `metadata` follows symlinks; a broken link fails and is skipped.
            let meta = std::fs::metadata(&path).ok()?;
            let kind = if meta.is_dir() {
                EntryKind::Dir
            } else if meta.is_file() {
                EntryKind::File
            } else {
                EntryKind::Other
            };
            Some((name, path, kind))
        })
        .collect();
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    entries
}

/// What a directory entry is, after following symlinks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryKind {
    /// A directory.
    Dir,
    /// A regular file.
    File,
    /// Anything else (socket, fifo, device).
    Other,
}
