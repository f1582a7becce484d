//! fd's walk with `--hidden --no-require-git`, answered in path order.
//!
//! A sorted walk is single-threaded; fd walks on every core. So the sorted walk gets a short
//! time budget, which covers small trees and searches that hit their limit early; past it, the
//! whole tree is walked in parallel and sorted, which gives the same answer (path order is the
//! order of a sorted depth-first walk) at fd's speed.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ignore::{DirEntry, WalkBuilder, WalkState};
use rho_agent::ToolError;
use tokio_util::sync::CancellationToken;

use super::{ABORTED, FdMatcher};

/// How long the sorted single-threaded walk may run before the parallel walk takes over.
const SEQUENTIAL_BUDGET: Duration = Duration::from_millis(15);

/// Entries between two looks at the clock and the cancellation token.
const CHECK_EVERY: usize = 256;

/// Matching entries below `root` as Pi prints them (relative, directories with a trailing
/// `/`), in path order, at most `max`.
pub(super) fn walk(
    root: &Path,
    matcher: &FdMatcher,
    max: Option<usize>,
    cancel: &CancellationToken,
) -> Result<Vec<String>, ToolError> {
    let deadline = Instant::now() + SEQUENTIAL_BUDGET;
    if let Some(found) = walk_sorted(root, matcher, max, cancel, deadline)? {
        return Ok(found);
    }
    walk_parallel(root, matcher, max, cancel)
}

/// fd's walk settings.
fn builder(root: &Path) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(false)
        .require_git(false)
        .add_custom_ignore_filename(".fdignore");
    builder
}

/// The entry's path relative to `root` if fd would print it.
fn matched(entry: &DirEntry, root: &Path, matcher: &FdMatcher) -> Option<(PathBuf, bool)> {
    if entry.depth() == 0 || !matcher.is_match(entry.path()) {
        return None;
    }
    let relative = entry.path().strip_prefix(root).ok()?.to_path_buf();
    Some((relative, entry.file_type().is_some_and(|t| t.is_dir())))
}

/// Pi's line for one result; Pi trims what fd prints (an absolute path, so only its end).
fn line(relative: &Path, is_dir: bool) -> String {
    let mut line = relative.to_string_lossy().into_owned();
    if is_dir {
        line.push('/');
    }
    line.trim_end().to_owned()
}

/// The sorted walk; `None` once `deadline` has passed without finishing.
fn walk_sorted(
    root: &Path,
    matcher: &FdMatcher,
    max: Option<usize>,
    cancel: &CancellationToken,
    deadline: Instant,
) -> Result<Option<Vec<String>>, ToolError> {
    let walker = builder(root).sort_by_file_name(|a, b| a.cmp(b)).build();
    let mut found = Vec::new();
    for (seen, entry) in walker.enumerate() {
        if seen % CHECK_EVERY == 0 {
            if cancel.is_cancelled() {
                return Err(ToolError::new(ABORTED));
            }
            if Instant::now() > deadline {
                return Ok(None);
            }
        }
        // fd reports unreadable entries on stderr and goes on; Pi only looks at stdout then.
        let Some((relative, is_dir)) = entry.ok().and_then(|e| matched(&e, root, matcher)) else {
            continue;
        };
        found.push(line(&relative, is_dir));
        if max.is_some_and(|max| found.len() >= max) {
            break;
        }
    }
    Ok(Some(found))
}

/// The whole tree on every core, then sorted by path and cut to `max`.
fn walk_parallel(
    root: &Path,
    matcher: &FdMatcher,
    max: Option<usize>,
    cancel: &CancellationToken,
) -> Result<Vec<String>, ToolError> {
    let all: Mutex<Vec<(PathBuf, bool)>> = Mutex::new(Vec::new());
    builder(root).build_parallel().run(|| {
        let mut local = Flush {
            found: Vec::new(),
            all: &all,
        };
        Box::new(move |entry| {
            if cancel.is_cancelled() {
                return WalkState::Quit;
            }
            if let Some(hit) = entry.ok().and_then(|e| matched(&e, root, matcher)) {
                local.found.push(hit);
            }
            WalkState::Continue
        })
    });
    if cancel.is_cancelled() {
        return Err(ToolError::new(ABORTED));
    }
    let mut all = all
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    all.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    all.truncate(max.unwrap_or(usize::MAX));
    Ok(all
        .iter()
        .map(|(path, is_dir)| line(path, *is_dir))
        .collect())
}

/// A walker thread's results, added to the shared list once when the thread's visitor is dropped.
struct Flush<'a> {
    found: Vec<(PathBuf, bool)>,
    all: &'a Mutex<Vec<(PathBuf, bool)>>,
}

impl Drop for Flush<'_> {
    fn drop(&mut self) {
        if let Ok(mut all) = self.all.lock() {
            all.append(&mut self.found);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    /// The parallel walk must give exactly what the sorted walk gives, limits included.
    #[test]
    fn the_parallel_walk_sorts_and_cuts_like_the_sorted_walk() {
        let dir = tempfile::tempdir().unwrap();
        for rel in [
            "b/x.rs", "a/b/c.rs", "a.rs", "a/z.txt", ".h/q.rs", "c d/e.rs", "ign.rs",
        ] {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        }
        std::fs::write(dir.path().join(".gitignore"), "ign.rs\n").unwrap();
        let cancel = CancellationToken::new();
        let far = Instant::now() + Duration::from_secs(3600);
        for pattern in ["*", "*.rs"] {
            let matcher = FdMatcher::new(pattern, dir.path()).unwrap();
            for max in [None, Some(3)] {
                let sorted = walk_sorted(dir.path(), &matcher, max, &cancel, far).unwrap();
                let parallel = walk_parallel(dir.path(), &matcher, max, &cancel).unwrap();
                assert_eq!(parallel, sorted.unwrap(), "{pattern} {max:?}");
            }
        }
        let all = walk_parallel(
            dir.path(),
            &FdMatcher::new("*", dir.path()).unwrap(),
            None,
            &cancel,
        );
        let expected = [
            ".gitignore",
            ".h/",
            ".h/q.rs",
            "a/",
            "a/b/",
            "a/b/c.rs",
            "a/z.txt",
            "a.rs",
            "b/",
            "b/x.rs",
            "c d/",
            "c d/e.rs",
        ];
        assert_eq!(all.unwrap(), expected);
    }

    #[test]
    fn a_sorted_walk_past_its_deadline_gives_up() {
        let dir = tempfile::tempdir().unwrap();
        let cancel = CancellationToken::new();
        let matcher = FdMatcher::new("*", dir.path()).unwrap();
        let past = Instant::now() - Duration::from_millis(1);
        assert_eq!(
            walk_sorted(dir.path(), &matcher, None, &cancel, past),
            Ok(None)
        );
    }
}
