//! The mount namespace of a confined `bash` child: the whole file system read-only but the
//! writable roots and the private temp dir, the protected paths read-only inside the roots,
//! rho's credential files masked, a private `/dev/shm`, and (with `--no-network`) a network
//! namespace with nothing but loopback.
//!
//! What read-only mounts give that Landlock alone cannot: `chmod`, `chown` and `touch -d` on
//! files outside fail (Landlock does not govern metadata), a device node made inside the
//! workspace cannot be opened (`nodev`), and a path inside a writable root can be read-only.
//!
//! As root the child enters a new mount namespace and drops every capability before `exec`, so
//! the command cannot undo the mounts; otherwise it first enters a new user namespace (where
//! the kernel allows unprivileged ones), whose mounts a nested namespace cannot separate.
//!
//! Everything the child does is a plain syscall on memory prepared before the fork.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// `struct mount_attr` of `mount_setattr(2)`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;
const MOUNT_ATTR_NODEV: u64 = 0x4;
const AT_RECURSIVE: libc::c_uint = 0x8000;

/// The highest capability number dropped from the bounding set (past the kernel's last one,
/// `prctl` fails and the loop ends).
const MAX_CAPABILITY: libc::c_ulong = 63;

/// How the child gets the right to mount.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Privilege {
    /// rho runs as root: a mount namespace, then every capability dropped.
    Root,
    /// A new user namespace mapping rho's own uid and gid.
    UserNamespace {
        /// rho's uid.
        uid: u32,
        /// rho's gid.
        gid: u32,
    },
}

impl Privilege {
    /// This process's.
    pub(super) fn current() -> Privilege {
        // SAFETY: `geteuid`/`getegid` cannot fail and have no preconditions.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        if uid == 0 {
            Privilege::Root
        } else {
            Privilege::UserNamespace { uid, gid }
        }
    }
}

/// Everything the child mounts, as C strings made before the fork.
#[derive(Debug)]
pub(super) struct MountPlan {
    unshare_flags: libc::c_int,
    /// Whether the file system is confined (else only the network namespace is entered).
    confine_fs: bool,
    drop_capabilities: bool,
    uid_map: Option<Vec<u8>>,
    gid_map: Option<Vec<u8>>,
    writable: Vec<CString>,
    pinned: Vec<CString>,
    read_only: Vec<CString>,
    masked: Vec<CString>,
    /// A directory mounted over `/dev/shm`.
    shm: Option<CString>,
    /// Where the command starts: entered again once the mounts are made, since a working
    /// directory entered before them still points into the old, read-only mounts.
    cwd: Option<CString>,
}

/// A path as a C string; a path holding NUL cannot exist, so it is left out.
fn c_path(path: &Path) -> Option<CString> {
    CString::new(path.as_os_str().as_bytes()).ok()
}

impl MountPlan {
    /// A plan that enters the namespaces and, when `confine_fs`, makes everything read-only
    /// (the probe's plan); the builders below add to it.
    pub(super) fn new(privilege: Privilege, new_network: bool, confine_fs: bool) -> MountPlan {
        let mut unshare_flags = libc::CLONE_NEWNS;
        if new_network {
            unshare_flags |= libc::CLONE_NEWNET;
        }
        let (uid_map, gid_map) = match privilege {
            Privilege::Root => (None, None),
            Privilege::UserNamespace { uid, gid } => {
                unshare_flags |= libc::CLONE_NEWUSER;
                (
                    Some(format!("{uid} {uid} 1").into_bytes()),
                    Some(format!("{gid} {gid} 1").into_bytes()),
                )
            }
        };
        MountPlan {
            unshare_flags,
            confine_fs,
            drop_capabilities: privilege == Privilege::Root && confine_fs,
            uid_map,
            gid_map,
            writable: Vec::new(),
            pinned: Vec::new(),
            read_only: Vec::new(),
            masked: Vec::new(),
            shm: None,
            cwd: None,
        }
    }

    /// Directories that stay writable (mounted `nodev`, `nosuid`).
    pub(super) fn writable<'a>(mut self, dirs: impl IntoIterator<Item = &'a Path>) -> Self {
        self.writable.extend(dirs.into_iter().filter_map(c_path));
        self
    }

    /// Writable directories that become mount points, so they cannot be renamed away.
    pub(super) fn pinned<'a>(mut self, dirs: impl IntoIterator<Item = &'a Path>) -> Self {
        let existing = dirs.into_iter().filter(|p| p.is_dir());
        self.pinned.extend(existing.filter_map(c_path));
        self
    }

    /// Existing files and directories made read-only.
    pub(super) fn read_only<'a>(mut self, paths: impl IntoIterator<Item = &'a Path>) -> Self {
        let existing = paths.into_iter().filter(|p| p.symlink_metadata().is_ok());
        self.read_only.extend(existing.filter_map(c_path));
        self
    }

    /// Existing regular files replaced by an empty, unwritable view (`/dev/null`).
    pub(super) fn masked<'a>(mut self, files: impl IntoIterator<Item = &'a Path>) -> Self {
        let existing = files.into_iter().filter(|p| p.is_file());
        self.masked.extend(existing.filter_map(c_path));
        self
    }

    /// `dir` (writable, private to this rho) mounted over `/dev/shm`.
    pub(super) fn private_shm(mut self, dir: &Path) -> Self {
        if Path::new(super::SHM).is_dir() && dir.is_dir() {
            self.shm = c_path(dir);
        }
        self
    }

    /// The command's working directory.
    pub(super) fn cwd(mut self, cwd: &Path) -> Self {
        self.cwd = c_path(cwd);
        self
    }

    /// Enters the namespaces and mounts. Runs in the child between `fork` and `exec`: only
    /// syscalls, no allocation.
    pub(super) fn enter(&self) -> io::Result<()> {
        // SAFETY: every call below is a plain syscall on NUL-terminated strings and structs
        // owned by `self`, which outlives the calls.
        unsafe {
            if self.uid_map.is_some() {
                // rho is not dumpable (`harden_process`), which makes `/proc/self/*` root's
                // and the maps below unwritable; the child is about to `exec` anyway.
                check(libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0))?;
            }
            check(libc::unshare(self.unshare_flags))?;
            if let (Some(uid_map), Some(gid_map)) = (&self.uid_map, &self.gid_map) {
                write_file(c"/proc/self/setgroups", b"deny")?;
                write_file(c"/proc/self/uid_map", uid_map)?;
                write_file(c"/proc/self/gid_map", gid_map)?;
            }
            if !self.confine_fs {
                return Ok(());
            }
            let none = std::ptr::null::<libc::c_char>();
            let no_data = std::ptr::null::<libc::c_void>();
            check(libc::mount(
                none,
                c"/".as_ptr(),
                none,
                libc::MS_REC | libc::MS_PRIVATE,
                no_data,
            ))?;
            set_attributes(c"/", MOUNT_ATTR_RDONLY, 0)?;
            for dir in self.writable.iter().chain(&self.pinned) {
                bind(dir, dir)?;
                set_attributes(dir, MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID, MOUNT_ATTR_RDONLY)?;
            }
            for path in &self.read_only {
                bind(path, path)?;
                set_attributes(path, MOUNT_ATTR_RDONLY, 0)?;
            }
            for file in &self.masked {
                bind(c"/dev/null", file)?;
                set_attributes(file, MOUNT_ATTR_RDONLY, 0)?;
            }
            if let Some(dir) = &self.shm {
                bind(dir, c"/dev/shm")?;
            }
            if let Some(cwd) = &self.cwd {
                check(libc::chdir(cwd.as_ptr()))?;
            }
            if self.drop_capabilities {
                drop_all_capabilities();
            }
        }
        Ok(())
    }
}

/// `-1` as the last OS error.
fn check(result: libc::c_int) -> io::Result<()> {
    if result == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Writes `bytes` to a `/proc` file in one `write`.
unsafe fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: `path` is NUL-terminated; `bytes` is valid for its length.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        check(fd)?;
        let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let error = io::Error::last_os_error();
        libc::close(fd);
        if written < 0 {
            return Err(error);
        }
    }
    Ok(())
}

/// `mount --rbind source target`.
unsafe fn bind(source: &std::ffi::CStr, target: &std::ffi::CStr) -> io::Result<()> {
    // SAFETY: NUL-terminated strings, null file system type and data.
    check(unsafe {
        libc::mount(
            source.as_ptr(),
            target.as_ptr(),
            std::ptr::null(),
            libc::MS_BIND | libc::MS_REC,
            std::ptr::null(),
        )
    })
}

/// Sets and clears mount attributes on the mount at `path` and every mount beneath it; where a
/// mount beneath is locked (from a more privileged namespace), on the top mount alone.
unsafe fn set_attributes(path: &std::ffi::CStr, set: u64, clear: u64) -> io::Result<()> {
    let attr = MountAttr {
        attr_set: set,
        attr_clr: clear,
        propagation: 0,
        userns_fd: 0,
    };
    let call = |flags: libc::c_uint| {
        // SAFETY: `path` is NUL-terminated and `attr` a valid `mount_attr` of the given size.
        unsafe {
            libc::syscall(
                libc::SYS_mount_setattr,
                libc::AT_FDCWD,
                path.as_ptr(),
                flags,
                &attr as *const MountAttr,
                std::mem::size_of::<MountAttr>(),
            )
        }
    };
    if call(AT_RECURSIVE) == 0 {
        return Ok(());
    }
    let recursive_error = io::Error::last_os_error();
    if recursive_error.raw_os_error() == Some(libc::EPERM) && call(0) == 0 {
        return Ok(());
    }
    Err(recursive_error)
}

/// Drops every capability from the bounding set and the ambient set, so that the command
/// `exec`s without any (root's capabilities after `exec` are limited to the bounding set).
unsafe fn drop_all_capabilities() {
    // SAFETY: `prctl` with integer arguments; failures past the last capability are expected.
    unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        for capability in 0..=MAX_CAPABILITY {
            libc::prctl(libc::PR_CAPBSET_DROP, capability, 0, 0, 0);
        }
    }
}

/// Whether the namespaces will be there, from checks that fork nothing: as root, whether
/// this process has `CAP_SYS_ADMIN` (a container may not); otherwise the kernel's switches for
/// unprivileged user namespaces. [`probe`] is the truth; this is for the start-up warning.
pub(super) fn predict(privilege: Privilege) -> Result<(), String> {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let number = |path: &str| read(path).and_then(|text| text.trim().parse::<u64>().ok());
    match privilege {
        Privilege::Root => {
            const CAP_SYS_ADMIN: u32 = 21;
            let effective = read("/proc/self/status").and_then(|status| {
                let line = status.lines().find(|line| line.starts_with("CapEff:"))?;
                u64::from_str_radix(line.trim_start_matches("CapEff:").trim(), 16).ok()
            });
            match effective {
                Some(caps) if caps & (1 << CAP_SYS_ADMIN) == 0 => {
                    Err("the kernel refuses a mount namespace (no CAP_SYS_ADMIN)".to_owned())
                }
                _ => Ok(()),
            }
        }
        Privilege::UserNamespace { .. } => {
            let refused = |why: &str| {
                Err(format!(
                    "the kernel refuses an unprivileged user namespace ({why})"
                ))
            };
            if number("/proc/sys/user/max_user_namespaces") == Some(0) {
                return refused("user.max_user_namespaces is 0");
            }
            if number("/proc/sys/kernel/unprivileged_userns_clone") == Some(0) {
                return refused("kernel.unprivileged_userns_clone is 0");
            }
            if number("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == Some(1) {
                return refused("kernel.apparmor_restrict_unprivileged_userns is 1");
            }
            Ok(())
        }
    }
}

/// Whether this process can give a child the namespaces (`Ok`), or why not: forks a child
/// that enters them and makes everything read-only, then exits.
pub(super) fn probe(privilege: Privilege, new_network: bool) -> Result<(), String> {
    let plan = MountPlan::new(privilege, new_network, true);
    // SAFETY: the child only makes syscalls (`enter`, `_exit`) on memory prepared before the
    // fork, which is async-signal-safe even in a multi-threaded parent.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        let code = match plan.enter() {
            Ok(()) => 0,
            Err(error) => error.raw_os_error().unwrap_or(255).clamp(1, 255),
        };
        // SAFETY: ends the child without running the parent's exit handlers.
        unsafe { libc::_exit(code) };
    }
    if pid < 0 {
        return Err(format!("cannot fork: {}", io::Error::last_os_error()));
    }
    let mut status = 0;
    loop {
        // SAFETY: waits for the child just forked.
        let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
        if waited == pid {
            break;
        }
        if io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return Err(format!("cannot wait: {}", io::Error::last_os_error()));
        }
    }
    if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
        return Ok(());
    }
    let errno = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        0
    };
    let what = match privilege {
        Privilege::Root => "a mount namespace",
        Privilege::UserNamespace { .. } => "an unprivileged user namespace",
    };
    Err(format!(
        "the kernel refuses {what} ({})",
        io::Error::from_raw_os_error(errno)
    ))
}
