//! The OS sandbox for `bash` on Linux: a Landlock ruleset built once, before any fork, and
//! applied in the child between `fork` and `exec` with two plain syscalls.
//!
//! - `workspace-write`: read and execute everywhere; write only beneath the allowed roots, a
//!   private temp dir (the child's `TMPDIR`) and a few devices (`/dev/null`, `/dev/tty`, …).
//! - `read-only`: the same without any writable directory.
//! - `full`: no sandbox.
//! - `--no-network`: TCP bind and connect denied by Landlock (ABI ≥ 4), and a private network
//!   namespace is tried (`unshare(CLONE_NEWNET)`, needs CAP_SYS_ADMIN); without the namespace
//!   UDP and unix sockets stay open.
//!
//! Where the kernel has no Landlock the status says so and nothing is applied: the caller
//! reports it and relies on the path gate alone.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Once;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, path_beneath_rules,
};

use crate::mode::PermissionMode;
use crate::policy::GatePolicy;

/// Devices every shell needs to write to.
const WRITABLE_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/random",
    "/dev/urandom",
    "/dev/ptmx",
    "/dev/pts",
    "/dev/shm",
];

/// Set to anything non-empty, this makes [`Sandbox::prepare`] act as on a kernel without
/// Landlock: the one way to exercise the fallback end to end (warning, `details`, path gate
/// alone) on a machine that has it. It can only weaken rho's own sandbox, never lift one a
/// parent process is already confined by (Landlock domains are inherited).
pub const FORCE_UNAVAILABLE_ENV: &str = "RHO_SANDBOX_FORCE_UNAVAILABLE";

/// Why the sandbox is forced off, if [`FORCE_UNAVAILABLE_ENV`] asks for it.
fn forced_unavailable() -> Option<String> {
    std::env::var_os(FORCE_UNAVAILABLE_ENV)
        .filter(|value| !value.is_empty())
        .map(|_| format!("{FORCE_UNAVAILABLE_ENV} is set"))
}

/// `LANDLOCK_CREATE_RULESET_VERSION`: ask the kernel for its ABI version.
const CREATE_RULESET_VERSION: libc::c_uint = 1;

/// A sandbox that could not be prepared although Landlock is there.
#[derive(Debug, thiserror::Error)]
#[error("Cannot prepare the bash sandbox: {0}")]
pub struct SandboxError(String);

/// What the sandbox does to each `bash` child.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SandboxStatus {
    /// `full` mode and network allowed: nothing is confined.
    Off,
    /// Landlock is applied.
    Enforced {
        /// The kernel's Landlock ABI version.
        abi: i32,
        /// Whether TCP bind/connect are denied (`--no-network` and ABI ≥ 4).
        tcp_denied: bool,
    },
    /// The kernel cannot confine the child; only the path gate protects.
    Unavailable {
        /// Why, e.g. `the kernel does not support Landlock`.
        reason: String,
    },
}

impl SandboxStatus {
    /// The one line told on stderr and in `details` when the sandbox is unavailable.
    pub fn warning(&self) -> Option<String> {
        match self {
            SandboxStatus::Unavailable { reason } => Some(format!(
                "bash sandbox unavailable ({reason}); commands run unconfined, only the path gate of the file tools applies"
            )),
            SandboxStatus::Enforced { .. } | SandboxStatus::Off => None,
        }
    }
}

/// A prepared sandbox: the ruleset's fd, kept open for every child.
#[derive(Debug)]
pub struct Sandbox {
    ruleset: Option<OwnedFd>,
    new_net_namespace: bool,
    status: SandboxStatus,
    tmp_dir: Option<PathBuf>,
}

/// The kernel's Landlock ABI version, or why there is none.
pub fn landlock_abi() -> Result<i32, String> {
    // SAFETY: with a null attribute, size 0 and the VERSION flag the call only returns a number.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            CREATE_RULESET_VERSION,
        )
    };
    if abi >= 1 {
        return i32::try_from(abi).map_err(|_| "an unknown Landlock ABI".to_owned());
    }
    Err(match io::Error::last_os_error().raw_os_error() {
        Some(libc::ENOSYS) => "the kernel does not support Landlock".to_owned(),
        Some(libc::EOPNOTSUPP) => "Landlock is disabled in this kernel".to_owned(),
        _ => format!("Landlock is unavailable: {}", io::Error::last_os_error()),
    })
}

impl Sandbox {
    /// Prepares the sandbox for `policy`. In `workspace-write` it creates a private temp dir
    /// (removed when the sandbox is dropped) that the child gets as `TMPDIR`.
    pub fn prepare(policy: &GatePolicy) -> Result<Sandbox, SandboxError> {
        let confine_fs = policy.mode() != PermissionMode::Full;
        let confine_net = !policy.network();
        if !confine_fs && !confine_net {
            return Ok(Sandbox {
                ruleset: None,
                new_net_namespace: false,
                status: SandboxStatus::Off,
                tmp_dir: None,
            });
        }
        let abi_number = match forced_unavailable().map_or_else(landlock_abi, Err) {
            Ok(abi) => abi,
            Err(reason) => return Ok(Sandbox::unavailable(policy, reason)),
        };
        let abi = ABI::from(abi_number);
        let tmp_dir = if policy.mode() == PermissionMode::WorkspaceWrite {
            Some(create_private_dir().map_err(|e| SandboxError(e.to_string()))?)
        } else {
            None
        };
        let tcp_denied = confine_net && abi_number >= 4;
        let ruleset = build_ruleset(policy, abi, confine_fs, tcp_denied, tmp_dir.as_deref())?;
        Ok(Sandbox {
            ruleset,
            new_net_namespace: confine_net,
            status: SandboxStatus::Enforced {
                abi: abi_number,
                tcp_denied,
            },
            tmp_dir,
        })
    }

    /// The fallback where the kernel cannot confine the child: nothing is applied to the
    /// file system (the path gate alone protects) and the status says why. `prepare` gives
    /// this when Landlock is missing; tests build it directly to exercise the fallback on a
    /// kernel that has Landlock.
    pub fn unavailable(policy: &GatePolicy, reason: impl Into<String>) -> Sandbox {
        Sandbox {
            ruleset: None,
            new_net_namespace: !policy.network(),
            status: SandboxStatus::Unavailable {
                reason: reason.into(),
            },
            tmp_dir: None,
        }
    }

    /// What the sandbox does.
    pub fn status(&self) -> &SandboxStatus {
        &self.status
    }

    /// The child's private `TMPDIR`, if it has one.
    pub fn tmp_dir(&self) -> Option<&Path> {
        self.tmp_dir.as_deref()
    }

    /// Says once per process on stderr that the sandbox is unavailable, if it is.
    pub fn warn_once_if_unavailable(&self) {
        static WARNED: Once = Once::new();
        if let Some(warning) = self.status.warning() {
            WARNED.call_once(|| eprintln!("rho: {warning}"));
        }
    }

    /// The closure to run in the child between `fork` and `exec` (`Command::pre_exec`).
    ///
    /// It only makes async-signal-safe syscalls on values captured here: `unshare` (network,
    /// failure ignored), `prctl(PR_SET_NO_NEW_PRIVS)` and `landlock_restrict_self`; it never
    /// allocates or locks. A failure of the last two fails the spawn, so a command never runs
    /// unconfined by accident. The sandbox must outlive the spawn (the fd is borrowed).
    pub fn child_hook(&self) -> impl FnMut() -> io::Result<()> + Send + Sync + 'static {
        let fd = self.ruleset.as_ref().map(AsRawFd::as_raw_fd);
        let new_net = self.new_net_namespace;
        move || {
            if new_net {
                // SAFETY: a single syscall with a constant flag; failure leaves the namespace.
                let _ = unsafe { libc::unshare(libc::CLONE_NEWNET) };
            }
            if let Some(fd) = fd {
                // SAFETY: plain syscalls on integers; the fd is open in the parent for the whole
                // spawn, so the child's copy is valid.
                unsafe {
                    if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                        return Err(io::Error::last_os_error());
                    }
                    if libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) != 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
            }
            Ok(())
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if let Some(dir) = &self.tmp_dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// The ruleset: read everywhere, write beneath the roots, the temp dir and the devices.
fn build_ruleset(
    policy: &GatePolicy,
    abi: ABI,
    confine_fs: bool,
    tcp_denied: bool,
    tmp_dir: Option<&Path>,
) -> Result<Option<OwnedFd>, SandboxError> {
    let err = |e: landlock::RulesetError| SandboxError(e.to_string());
    let mut ruleset = Ruleset::default().set_compatibility(CompatLevel::BestEffort);
    if confine_fs {
        ruleset = ruleset
            .handle_access(AccessFs::from_all(abi))
            .map_err(err)?;
    }
    if tcp_denied {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(err)?;
    }
    let mut created = ruleset.create().map_err(err)?;
    if confine_fs {
        created = created
            .add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi)))
            .map_err(err)?
            .add_rules(path_beneath_rules(
                WRITABLE_DEVICES,
                AccessFs::from_all(abi),
            ))
            .map_err(err)?;
        if policy.mode() == PermissionMode::WorkspaceWrite {
            let writable: Vec<&Path> = policy
                .roots()
                .iter()
                .map(PathBuf::as_path)
                .chain(tmp_dir)
                .collect();
            created = created
                .add_rules(path_beneath_rules(writable, AccessFs::from_all(abi)))
                .map_err(err)?;
        }
    }
    Ok(created.into())
}

/// Creates `<tmp>/rho-sandbox-<16 hex>` with mode 0700.
fn create_private_dir() -> io::Result<PathBuf> {
    use std::hash::{BuildHasher, Hasher};
    use std::os::unix::fs::DirBuilderExt;
    let mut attempt = 0u64;
    loop {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(attempt);
        hasher.write_u32(std::process::id());
        let dir = std::env::temp_dir().join(format!("rho-sandbox-{:016x}", hasher.finish()));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 16 => attempt += 1,
            Err(e) => return Err(e),
        }
    }
}
