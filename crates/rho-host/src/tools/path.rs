//! Path resolution for the coding tools (pi-reference §6.0, Pi's `resolveToCwd`/`resolveReadPath`).

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// U+202F NARROW NO-BREAK SPACE, which macOS puts before AM/PM in screenshot names.
const NARROW_NO_BREAK_SPACE: char = '\u{202F}';

/// Whether `c` is one of the Unicode spaces Pi turns into an ASCII space.
fn is_unicode_space(c: char) -> bool {
    matches!(
        c,
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
    )
}

/// The home directory: `$HOME`, else the platform's notion of it.
fn home_dir() -> Option<OsString> {
    match std::env::var_os("HOME") {
        Some(home) if !home.is_empty() => Some(home),
        _ => {
            #[allow(deprecated)]
            let fallback = std::env::home_dir();
            fallback.map(PathBuf::into_os_string)
        }
    }
}

/// Strips one `@`, normalises Unicode spaces and expands `~` / `~/…` (Pi's `expandPath`).
///
/// Without a home directory, `~` is left as it is.
fn expand_path(path: &str) -> PathBuf {
    let path = path.strip_prefix('@').unwrap_or(path);
    let path: String = path
        .chars()
        .map(|c| if is_unicode_space(c) { ' ' } else { c })
        .collect();
    let tilde = path == "~" || path.starts_with("~/");
    match tilde.then(home_dir).flatten() {
        Some(mut home) => {
            // Like Pi: home + "/rest", not re-normalised.
            home.push(&path[1..]);
            PathBuf::from(home)
        }
        None => PathBuf::from(path),
    }
}

/// Lexically normalises an absolute path: drops `.`, resolves `..` (never above the root) and
/// trailing separators, like Node's `path.resolve`. Touches no file.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir | Component::Normal(_) => {
                out.push(component.as_os_str());
            }
            Component::CurDir => {}
            Component::ParentDir => {
                if out.parent().is_some() {
                    out.pop();
                }
            }
        }
    }
    out
}

/// Resolves a path given by the model against `cwd` (Pi's `resolveToCwd`).
///
/// 1. strips one leading `@`;
/// 2. turns U+00A0, U+2000–U+200A, U+202F, U+205F and U+3000 into ASCII spaces;
/// 3. expands `~` and `~/…` to the home directory (`~user` is not supported);
/// 4. returns an absolute path as it is, otherwise joins it to `cwd` and normalises `.` and
///    `..` lexically (no file is touched).
///
/// A relative `cwd` is first taken relative to the process's working directory.
pub fn resolve_to_cwd(path: &str, cwd: &Path) -> PathBuf {
    let expanded = expand_path(path);
    if expanded.is_absolute() {
        return expanded;
    }
    let base = if cwd.is_absolute() {
        cwd.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|dir| dir.join(cwd))
            .unwrap_or_else(|_| cwd.to_path_buf())
    };
    normalize(&base.join(expanded))
}

/// Like [`resolve_to_cwd`], but when the result does not exist tries, in order, the macOS
/// screenshot variant (U+202F before `AM.`/`PM.`) and the curly-apostrophe variant (`'` →
/// U+2019); the first that exists wins, otherwise the plain resolved path is returned.
///
/// Pi also tries the NFD form of the name (alone and with curly quotes); that needs Unicode
/// normalisation tables this crate does not have, so those variants are skipped.
pub fn resolve_read_path(path: &str, cwd: &Path) -> PathBuf {
    let resolved = resolve_to_cwd(path, cwd);
    if resolved.exists() {
        return resolved;
    }
    let Some(text) = resolved.to_str() else {
        return resolved;
    };
    let screenshot = text
        .replace(" AM.", &format!("{NARROW_NO_BREAK_SPACE}AM."))
        .replace(" PM.", &format!("{NARROW_NO_BREAK_SPACE}PM."));
    let curly = text.replace('\'', "\u{2019}");
    [screenshot, curly]
        .into_iter()
        .filter(|variant| variant != text)
        .map(PathBuf::from)
        .find(|variant| variant.exists())
        .unwrap_or(resolved)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn relative_paths_are_joined_to_the_cwd_and_normalised() {
        let cwd = Path::new("/work/project");
        assert_eq!(
            resolve_to_cwd("src/lib.rs", cwd),
            PathBuf::from("/work/project/src/lib.rs")
        );
        assert_eq!(
            resolve_to_cwd("./a/./b/", cwd),
            PathBuf::from("/work/project/a/b")
        );
        assert_eq!(
            resolve_to_cwd("../other/x", cwd),
            PathBuf::from("/work/other/x")
        );
        assert_eq!(resolve_to_cwd("../../../../x", cwd), PathBuf::from("/x"));
        assert_eq!(resolve_to_cwd("", cwd), PathBuf::from("/work/project"));
        assert_eq!(
            resolve_to_cwd("a", Path::new("/w/./p/../q")),
            PathBuf::from("/w/q/a")
        );
    }

    #[test]
    fn absolute_paths_are_kept_as_they_are() {
        let cwd = Path::new("/work");
        assert_eq!(resolve_to_cwd("/etc/../x", cwd), PathBuf::from("/etc/../x"));
    }

    #[test]
    fn one_leading_at_sign_is_stripped() {
        let cwd = Path::new("/work");
        assert_eq!(
            resolve_to_cwd("@notes.md", cwd),
            PathBuf::from("/work/notes.md")
        );
        assert_eq!(
            resolve_to_cwd("@@notes.md", cwd),
            PathBuf::from("/work/@notes.md")
        );
        assert_eq!(resolve_to_cwd("@/abs", cwd), PathBuf::from("/abs"));
    }

    #[test]
    fn unicode_spaces_become_ascii_spaces() {
        let cwd = Path::new("/work");
        let odd = "a\u{00A0}b\u{2003}c\u{202F}d\u{205F}e\u{3000}f";
        assert_eq!(resolve_to_cwd(odd, cwd), PathBuf::from("/work/a b c d e f"));
    }

    #[test]
    fn a_tilde_expands_to_the_home_directory() {
        let Some(home) = home_dir() else { return };
        let cwd = Path::new("/work");
        let home = home.into_string().unwrap();
        assert_eq!(resolve_to_cwd("~", cwd), PathBuf::from(&home));
        assert_eq!(
            resolve_to_cwd("~/x/y", cwd),
            PathBuf::from(format!("{home}/x/y"))
        );
        assert_eq!(
            resolve_to_cwd("~other/x", cwd),
            PathBuf::from("/work/~other/x")
        );
    }

    #[test]
    fn read_path_falls_back_to_the_screenshot_and_curly_quote_variants() {
        let dir = tempfile::tempdir().unwrap();
        let shot = "Screenshot 2024-01-01 at 10.00.00\u{202F}AM.png";
        std::fs::write(dir.path().join(shot), "x").unwrap();
        std::fs::write(dir.path().join("it\u{2019}s.txt"), "x").unwrap();
        std::fs::write(dir.path().join("plain's.txt"), "x").unwrap();

        let asked = "Screenshot 2024-01-01 at 10.00.00 AM.png";
        assert_eq!(resolve_read_path(asked, dir.path()), dir.path().join(shot));
        assert_eq!(
            resolve_read_path("it's.txt", dir.path()),
            dir.path().join("it\u{2019}s.txt")
        );
        assert_eq!(
            resolve_read_path("plain's.txt", dir.path()),
            dir.path().join("plain's.txt")
        );
        assert_eq!(
            resolve_read_path("none's.txt", dir.path()),
            dir.path().join("none's.txt")
        );
    }
}
