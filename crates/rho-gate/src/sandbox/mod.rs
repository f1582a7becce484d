//! The OS sandbox for `bash` on Linux, prepared once and applied in each child between `fork`
//! and `exec` with plain syscalls. Three layers, each doing what the others cannot:
//!
//! - **Landlock** ([`ruleset`]): read everywhere, write beneath the roots and a private temp
//!   dir; no device creation; signals (and with `--no-network` abstract sockets) scoped to the
//!   sandbox; TCP denied with `--no-network`.
//! - **Namespaces** ([`namespace`]), where the kernel allows them: everything outside the
//!   writable dirs mounted read-only (so metadata outside cannot change either), the protected
//!   paths read-only inside the roots, rho's credential files masked, a private `/dev/shm`,
//!   and with `--no-network` a network namespace of its own.
//! - **seccomp** ([`seccomp`]): no device nodes, no `io_uring`, and with `--no-network` no
//!   socket but netlink (so no unix socket outside the workspace either).
//!
//! `full` mode without `--no-network` applies nothing. Where the kernel lacks a layer, the
//! sandbox says which guarantees are missing ([`Sandbox::gaps`]) and rho warns at start-up.

mod lazy;
mod namespace;
mod ruleset;
mod seccomp;

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use landlock::ABI;
use seccompiler::BpfProgram;

use self::namespace::{MountPlan, Privilege};
use self::ruleset::{RulesetSpec, build_ruleset};
use crate::mode::PermissionMode;
use crate::policy::GatePolicy;

pub use self::lazy::LazySandbox;
pub use self::seccomp::SeccompError;

/// Set to anything non-empty, this makes [`Sandbox::prepare`] act as on a kernel without
/// Landlock: the one way to exercise the fallback end to end (warning, `details`, path gate
/// alone) on a machine that has it. It can only weaken rho's own sandbox, never lift one a
/// parent process is already confined by (Landlock domains are inherited).
pub const FORCE_UNAVAILABLE_ENV: &str = "RHO_SANDBOX_FORCE_UNAVAILABLE";

/// Set to anything non-empty, this makes [`Sandbox::prepare`] act as on a kernel that refuses
/// the namespaces: the way to test that fallback (Landlock and seccomp alone, and the warning
/// naming what is lost) on a machine that has them.
pub const FORCE_NO_NAMESPACES_ENV: &str = "RHO_SANDBOX_FORCE_NO_NAMESPACES";

/// Why an environment variable forces a layer off, if it does.
fn forced(name: &str) -> Option<String> {
    std::env::var_os(name)
        .filter(|value| !value.is_empty())
        .map(|_| format!("{name} is set"))
}

/// `LANDLOCK_CREATE_RULESET_VERSION`: ask the kernel for its ABI version.
const CREATE_RULESET_VERSION: libc::c_uint = 1;

/// Shared memory: in `workspace-write` with namespaces, a directory of this rho's own is
/// mounted over it (granted by Landlock through that directory); otherwise it is read-only.
const SHM: &str = "/dev/shm";

/// The name of that directory inside the private temp dir.
const SHM_DIR: &str = "shm";

/// The Landlock ABI from which signals and abstract sockets can be scoped.
const SCOPE_ABI: i32 = 6;

/// A sandbox that could not be prepared although Landlock is there.
#[derive(Debug, thiserror::Error)]
#[error("Cannot prepare the bash sandbox: {0}")]
pub struct SandboxError(String);

impl From<SeccompError> for SandboxError {
    fn from(error: SeccompError) -> Self {
        SandboxError(error.to_string())
    }
}

/// What the sandbox does to each `bash` child.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SandboxStatus {
    /// `full` mode and network allowed: nothing is confined.
    Off,
    /// Landlock and seccomp are applied.
    Enforced {
        /// The kernel's Landlock ABI version.
        abi: i32,
        /// Whether the network is cut (`--no-network`).
        network_denied: bool,
        /// Whether each child gets its own mount namespace (and user namespace if not root).
        namespaces: bool,
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

/// A prepared sandbox: the ruleset's fd and the seccomp filter, kept for every child.
#[derive(Debug)]
pub struct Sandbox {
    policy: GatePolicy,
    ruleset: Option<OwnedFd>,
    seccomp: Option<BpfProgram>,
    /// How children enter their namespaces, or why they cannot.
    namespaces: Result<Privilege, String>,
    status: SandboxStatus,
    gaps: Vec<String>,
    tmp_dir: Option<PathBuf>,
}

/// Makes rho's own process unreadable to the commands it runs: not dumpable, so its
/// `/proc/<pid>/environ`, `mem`, `maps` and `fd/` (where its keys are) are open to root with
/// `CAP_SYS_PTRACE` only, and no core file holds its memory. Its `cmdline` stays readable to
/// everyone, which is why an `--api-key` value is masked there. Children get their own
/// dumpable state back when they `exec`.
pub fn harden_process() {
    // SAFETY: `prctl` with integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
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
    /// (removed when the sandbox is dropped) that the child gets as `TMPDIR`. Where the kernel
    /// may give namespaces, one child is forked to find out (well under a millisecond).
    pub fn prepare(policy: &GatePolicy) -> Result<Sandbox, SandboxError> {
        let confine_fs = policy.mode() != PermissionMode::Full;
        let confine_net = !policy.network();
        if !confine_fs && !confine_net {
            return Ok(Sandbox::off(policy));
        }
        let abi_number = match forced(FORCE_UNAVAILABLE_ENV).map_or_else(landlock_abi, Err) {
            Ok(abi) => abi,
            Err(reason) => return Ok(Sandbox::unavailable(policy, reason)),
        };
        let tmp_dir = if policy.mode() == PermissionMode::WorkspaceWrite {
            let dir = create_private_dir().map_err(|e| SandboxError(e.to_string()))?;
            std::fs::create_dir(dir.join(SHM_DIR)).map_err(|e| SandboxError(e.to_string()))?;
            Some(dir)
        } else {
            None
        };
        let namespaces = forced(FORCE_NO_NAMESPACES_ENV).map_or_else(
            || {
                let privilege = Privilege::current();
                namespace::probe(privilege, confine_net).map(|()| privilege)
            },
            Err,
        );
        // A rule on the shm dir itself: seen through its mount on `/dev/shm`, the dir has
        // no ancestor in the temp dir for Landlock to find.
        let shm_dir = tmp_dir.as_ref().map(|tmp| tmp.join(SHM_DIR));
        let mut writable: Vec<&Path> = Vec::new();
        if policy.mode() == PermissionMode::WorkspaceWrite {
            writable.extend(policy.roots().iter().map(PathBuf::as_path));
            writable.extend(tmp_dir.as_deref());
            writable.extend(shm_dir.as_deref());
        }
        let spec = RulesetSpec {
            confine_fs,
            deny_tcp: confine_net,
            scope_abstract_sockets: confine_net,
            writable,
        };
        let ruleset = build_ruleset(ABI::from(abi_number), &spec)?;
        let seccomp = Some(seccomp::compile(confine_net)?);
        let mut sandbox = Sandbox {
            policy: policy.clone(),
            ruleset,
            seccomp,
            status: SandboxStatus::Enforced {
                abi: abi_number,
                network_denied: confine_net,
                namespaces: namespaces.is_ok(),
            },
            namespaces,
            gaps: Vec::new(),
            tmp_dir,
        };
        sandbox.gaps = sandbox.find_gaps(abi_number);
        Ok(sandbox)
    }

    /// Nothing to confine.
    fn off(policy: &GatePolicy) -> Sandbox {
        Sandbox {
            policy: policy.clone(),
            ruleset: None,
            seccomp: None,
            namespaces: Err("not needed".to_owned()),
            status: SandboxStatus::Off,
            gaps: Vec::new(),
            tmp_dir: None,
        }
    }

    /// The fallback where the kernel cannot confine the child: nothing is applied to the
    /// file system (the path gate alone protects) and the status says why. `prepare` gives
    /// this when Landlock is missing; tests build it directly to exercise the fallback on a
    /// kernel that has Landlock.
    pub fn unavailable(policy: &GatePolicy, reason: impl Into<String>) -> Sandbox {
        let mut sandbox = Sandbox::off(policy);
        sandbox.status = SandboxStatus::Unavailable {
            reason: reason.into(),
        };
        sandbox
    }

    /// What this mode promises that this kernel cannot give, one sentence each.
    fn find_gaps(&self, abi: i32) -> Vec<String> {
        let mut gaps = Vec::new();
        if abi < SCOPE_ABI {
            gaps.push(scope_gap(abi));
        }
        if let Err(reason) = &self.namespaces
            && self.policy.mode() != PermissionMode::Full
        {
            gaps.push(namespace_gap(reason));
        }
        gaps
    }

    /// What the sandbox does.
    pub fn status(&self) -> &SandboxStatus {
        &self.status
    }

    /// The guarantees of this mode that this kernel cannot give (empty when all hold).
    pub fn gaps(&self) -> &[String] {
        &self.gaps
    }

    /// The lines rho says at start-up: the sandbox is unavailable, or what it cannot give.
    pub fn warnings(&self) -> Vec<String> {
        if let Some(warning) = self.status.warning() {
            return vec![warning];
        }
        self.gaps
            .iter()
            .map(|gap| format!("bash sandbox: {gap}"))
            .collect()
    }

    /// The child's private `TMPDIR`, if it has one.
    pub fn tmp_dir(&self) -> Option<&Path> {
        self.tmp_dir.as_deref()
    }

    /// The mounts of one child, from the protected paths as they are now. In
    /// `workspace-write` the protected directories a root lacks (`.rho`, a git dir's `hooks`
    /// and `info`) are created empty first, so that they can be mounted read-only.
    fn mount_plan(&self, privilege: Privilege, cwd: &Path) -> MountPlan {
        let protected = self.policy.protected_paths();
        let workspace_write = self.policy.mode() == PermissionMode::WorkspaceWrite;
        if workspace_write {
            let missing_dirs = protected.read_only.iter().filter(|path| {
                let name = path.file_name().and_then(|n| n.to_str());
                matches!(name, Some(".rho" | "hooks" | "info"))
                    && path.parent().is_some_and(|parent| {
                        self.policy.is_inside_roots(parent) && parent.is_dir()
                    })
                    && path.symlink_metadata().is_err()
            });
            for dir in missing_dirs {
                let _ = std::fs::create_dir(dir);
            }
        }
        let confine_fs = self.policy.mode() != PermissionMode::Full;
        let mut plan = MountPlan::new(privilege, !self.policy.network(), confine_fs).cwd(cwd);
        if confine_fs {
            let credentials = self.policy.credential_files();
            plan = plan.masked(credentials.iter().map(PathBuf::as_path));
        }
        if workspace_write {
            if let Some(tmp) = &self.tmp_dir {
                plan = plan.private_shm(&tmp.join(SHM_DIR));
            }
            plan = plan
                .writable(self.policy.roots().iter().map(PathBuf::as_path))
                .writable(self.tmp_dir.as_deref())
                .pinned(protected.git_dirs.iter().map(PathBuf::as_path))
                .read_only(protected.read_only.iter().map(PathBuf::as_path));
        }
        plan
    }

    /// The closure to run in the child between `fork` and `exec` (`Command::pre_exec`), made
    /// for one spawn in `cwd` (the protected paths are looked up now).
    ///
    /// It only makes async-signal-safe syscalls on values captured here: the namespaces and
    /// mounts, `prctl(PR_SET_NO_NEW_PRIVS)`, the seccomp filter and `landlock_restrict_self`;
    /// it never allocates or locks. Any failure fails the spawn, so a command never runs less
    /// confined than [`Sandbox::status`] says. The sandbox must outlive the spawn (the
    /// ruleset fd is borrowed).
    pub fn child_hook(&self, cwd: &Path) -> impl FnMut() -> io::Result<()> + Send + Sync + 'static {
        let fd = self.ruleset.as_ref().map(AsRawFd::as_raw_fd);
        let confined = matches!(self.status, SandboxStatus::Enforced { .. });
        let plan = match (&self.namespaces, confined) {
            (Ok(privilege), true) => Some(self.mount_plan(*privilege, cwd)),
            _ => None,
        };
        let seccomp = self.seccomp.clone().filter(|_| confined);
        move || {
            if let Some(plan) = &plan {
                plan.enter()?;
            }
            // SAFETY: plain syscalls on integers; the fd is open in the parent for the whole
            // spawn, so the child's copy is valid.
            unsafe {
                if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            if let Some(program) = &seccomp {
                seccompiler::apply_filter(program).map_err(|error| match error {
                    seccompiler::Error::Seccomp(e) | seccompiler::Error::Prctl(e) => e,
                    _ => io::Error::from_raw_os_error(libc::EINVAL),
                })?;
            }
            if let Some(fd) = fd {
                // SAFETY: see above.
                if unsafe { libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) } != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            Ok(())
        }
    }
}

/// The gap of a Landlock ABI that cannot scope signals.
fn scope_gap(abi: i32) -> String {
    format!(
        "Landlock ABI {abi} cannot scope signals (needs {SCOPE_ABI}): a command can signal rho and other processes of this user"
    )
}

/// The gap of a kernel that refuses the namespaces, and why.
fn namespace_gap(reason: &str) -> String {
    format!(
        "no namespaces ({reason}): .rho/, RHO_HOME and git's config and hooks are read-only to the file tools only, rho's credential files are readable by commands, metadata (chmod, chown, times) of files outside the workspace can be changed, and /dev/shm is unavailable"
    )
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if let Some(dir) = &self.tmp_dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Creates `<tmp>/rho-sandbox-<16 hex>` with mode 0700.
fn create_private_dir() -> io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let mut attempt = 0u64;
    loop {
        let name = format!("rho-sandbox-{:016x}", rho_stdx::random::u64(attempt));
        let dir = std::env::temp_dir().join(name);
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 16 => attempt += 1,
            Err(e) => return Err(e),
        }
    }
}
