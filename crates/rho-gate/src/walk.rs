//! Walks confined by the kernel: `find` and `grep` walk directories by path (the `ignore` crate
//! needs paths, also for the ignore files of parent directories), so a directory swapped for a
//! symlink to the outside between two steps would be listed. The walk therefore runs on a
//! thread of its own that Landlock lets read beneath the roots only (plus the ignore files and
//! git configuration the walk reads above them): the check is the kernel's, made at each
//! `open`, the same operation as the use. Threads the walk starts inherit the confinement; the
//! thread ends with the walk, so the confinement never reaches the rest of rho.
//!
//! Where the kernel has no Landlock the walk runs unconfined, and the tools' re-check after
//! the walk is what remains (the start-up warning says so).

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr,
    path_beneath_rules,
};

use crate::mode::PermissionMode;
use crate::policy::GatePolicy;
use crate::realpath::real_path;

/// The highest Landlock ABI this code knows the rights of.
const ABI_KNOWN: ABI = ABI::V5;

/// Ignore files a walk reads in every directory above its root (git's, ripgrep's, fd's).
const IGNORE_FILES: [&str; 4] = [".gitignore", ".ignore", ".rgignore", ".fdignore"];

/// Files of a repository or a user that the walk's ignore rules come from.
const GIT_FILES: [&str; 2] = [".git/info/exclude", ".git/config"];

impl GatePolicy {
    /// Runs `walk` where it can read only beneath the roots (see the module doc), and returns
    /// what it returns. In `full` mode, or where `root` is not inside the roots, it runs as is.
    pub fn confined_walk<T: Send>(&self, root: &Path, walk: impl FnOnce() -> T + Send) -> T {
        let real = real_path(root).unwrap_or_else(|_| root.to_path_buf());
        if self.mode() == PermissionMode::Full || !self.is_inside_roots(&real) {
            return walk();
        }
        let readable = self.walk_readable(root);
        std::thread::scope(|scope| {
            let confined = scope.spawn(move || {
                // BestEffort: on a kernel without Landlock this confines nothing; the
                // tools' re-check after the walk still applies.
                let _ = restrict_thread(&readable);
                walk()
            });
            match confined.join() {
                Ok(value) => value,
                Err(panic) => std::panic::resume_unwind(panic),
            }
        })
    }

    /// The roots (directories: read beneath) and the single files above `root` the walk may
    /// read: ignore files of every ancestor, a repository's excludes and config, and the
    /// user's git configuration and global excludes.
    fn walk_readable(&self, root: &Path) -> Readable {
        let mut files = Vec::new();
        for dir in root.ancestors().skip(1) {
            files.extend(IGNORE_FILES.iter().map(|name| dir.join(name)));
            files.extend(GIT_FILES.iter().map(|name| dir.join(name)));
        }
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|home| home.join(".config")));
        files.extend(home.iter().map(|home| home.join(".gitconfig")));
        if let Some(config) = config {
            files.push(config.join("git/config"));
            files.push(config.join("git/ignore"));
        }
        files.retain(|file| file.is_file());
        Readable {
            dirs: self.roots().to_vec(),
            files,
        }
    }
}

/// What a confined walk may read.
struct Readable {
    dirs: Vec<PathBuf>,
    files: Vec<PathBuf>,
}

/// Confines the calling thread (and the threads it starts) to reading `readable`.
fn restrict_thread(readable: &Readable) -> Result<(), landlock::RulesetError> {
    let abi = ABI_KNOWN;
    Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))?
        .create()?
        .add_rules(path_beneath_rules(&readable.dirs, AccessFs::from_read(abi)))?
        .add_rules(path_beneath_rules(&readable.files, AccessFs::ReadFile))?
        .restrict_self()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::os::unix::fs::symlink;

    use super::*;

    #[test]
    fn a_confined_walk_cannot_list_a_directory_outside_the_roots_but_the_caller_still_can() {
        let abi = crate::sandbox::landlock_abi();
        if rho_testkit::prerequisite::require("a confined walk needs Landlock", abi).is_none() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(base.join("p/d")).unwrap();
        std::fs::create_dir_all(base.join("out")).unwrap();
        std::fs::write(base.join("out/secret.txt"), "x").unwrap();
        symlink(base.join("out"), base.join("p/flipped")).unwrap();
        let policy = GatePolicy::new(PermissionMode::WorkspaceWrite, base.join("p"));
        let (inside, outside) = policy.confined_walk(&base.join("p"), || {
            (
                std::fs::read_dir(base.join("p/d")).is_ok(),
                std::fs::read_dir(base.join("p/flipped")).map_err(|e| e.kind()),
            )
        });
        assert!(inside);
        assert_eq!(outside.err(), Some(std::io::ErrorKind::PermissionDenied));
        assert!(std::fs::read_dir(base.join("p/flipped")).is_ok());
    }
}
