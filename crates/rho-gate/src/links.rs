//! Hard links: a file in the workspace can be another name of a file outside it. The path gate
//! sees the name inside; the inode is what holds the content. So a file with more than one name
//! is read only when its inode is none of the secret files' (rho's credential files, and the
//! secrets in the user's home: `.ssh/`, `.aws/credentials`, `.netrc`, …). Refusing every file
//! with several names would break pnpm projects, whose `node_modules` are hard links.
//!
//! The secret files are looked up at each such read (a few dozen `stat`s), so a secret made
//! after start-up counts too.

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

use crate::policy::GatePolicy;

/// The inodes of the secret files at one moment.
#[derive(Clone, Debug, Default)]
pub struct SecretInodes(Vec<(u64, u64)>);

impl SecretInodes {
    /// Whether `(dev, ino)` is one of them.
    pub(crate) fn contains(&self, dev: u64, ino: u64) -> bool {
        self.0.contains(&(dev, ino))
    }
}

impl GatePolicy {
    /// The secret files' inodes as they are now: taken before a confined walk, which cannot
    /// look outside the roots itself.
    pub fn secret_inodes(&self) -> SecretInodes {
        SecretInodes(
            secret_files(self)
                .iter()
                .filter_map(|path| std::fs::metadata(path).ok())
                .map(|meta| (meta.dev(), meta.ino()))
                .collect(),
        )
    }
}

/// rho's credential files and the secrets in the user's home.
fn secret_files(policy: &GatePolicy) -> Vec<PathBuf> {
    let mut files = policy.credential_files();
    if let Some(home) = std::env::var_os("HOME").filter(|home| !home.is_empty()) {
        files.extend(policy.secrets().files_in_home(&PathBuf::from(home)));
    }
    files
}
