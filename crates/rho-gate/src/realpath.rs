//! Where a path really leads: every symlink followed, also dangling ones and those in the
//! part of the path that does not exist yet (a `write` would create through them).

use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Linux's own limit on symlinks followed in one lookup (`MAXSYMLINKS`).
const MAX_SYMLINK_HOPS: usize = 40;

/// Resolves an absolute `path` the way the kernel would when opening (or creating) it: each
/// existing component is looked at with `lstat`; a symlink is replaced by its target, even
/// when the target does not exist; `..` is applied after the symlinks before it, as POSIX
/// does; once a component is missing, the rest is applied lexically.
///
/// Fails with `ErrorKind::InvalidInput` for a relative path or a NUL byte, with the OS's
/// ELOOP error after [`MAX_SYMLINK_HOPS`] symlinks, and with any other `lstat`/`readlink`
/// error except "not found" and "not a directory".
pub fn real_path(path: &Path) -> io::Result<PathBuf> {
    if !path.is_absolute() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "path is not absolute",
        ));
    }
    if path.as_os_str().as_encoded_bytes().contains(&0) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "path contains a NUL byte",
        ));
    }
    // Components still to walk, last first so `pop` yields the next one.
    let mut pending: Vec<OsString> = Vec::new();
    push_components(&mut pending, path);
    let mut out = PathBuf::from("/");
    let mut hops = 0;
    let mut missing = false;
    while let Some(name) = pending.pop() {
        if name == "." {
            continue;
        }
        if name == ".." {
            out.pop();
            continue;
        }
        out.push(&name);
        if missing {
            continue;
        }
        match std::fs::symlink_metadata(&out) {
            Ok(meta) if meta.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return Err(io::Error::from_raw_os_error(libc::ELOOP));
                }
                let target = std::fs::read_link(&out)?;
                out.pop();
                if target.is_absolute() {
                    out = PathBuf::from("/");
                }
                push_components(&mut pending, &target);
            }
            Ok(_) => {}
            Err(error)
                if error.kind() == io::ErrorKind::NotFound
                    || error.raw_os_error() == Some(libc::ENOTDIR) =>
            {
                missing = true;
            }
            Err(error) => return Err(error),
        }
    }
    Ok(out)
}

/// Pushes the components of `path` (without its root) so that the first is popped first.
fn push_components(pending: &mut Vec<OsString>, path: &Path) {
    let names: Vec<OsString> = path
        .components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name.to_os_string()),
            Component::ParentDir => Some("..".into()),
            Component::CurDir => Some(".".into()),
            Component::RootDir | Component::Prefix(_) => None,
        })
        .collect();
    pending.extend(names.into_iter().rev());
}
