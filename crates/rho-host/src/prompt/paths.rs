//! Resolving user-given resource paths the way Pi does: trimmed, `~` expanded, relative paths
//! against the cwd.

use std::path::{Path, PathBuf};

/// Resolves a `--skill` / `--prompt-template` value: `~`, `~/x` and `~x` expand to the home
/// directory; a relative path is taken against `cwd`.
pub fn resolve_user_path(raw: &str, cwd: &Path) -> PathBuf {
    let trimmed = raw.trim();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let expanded = match (trimmed, &home) {
        ("~", Some(home)) => home.clone(),
        (t, Some(home)) if t.starts_with("~/") => home.join(&t[2..]),
        (t, Some(home)) if t.starts_with('~') => home.join(&t[1..]),
        (t, _) => PathBuf::from(t),
    };
    if expanded.is_absolute() {
        expanded
    } else {
        cwd.join(expanded)
    }
}
