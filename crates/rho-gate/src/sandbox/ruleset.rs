//! The Landlock ruleset of a confined `bash` child, built once before any fork.
//!
//! - Read and execute everywhere; in `workspace-write` every file right beneath the roots and
//!   the private temp dir but the creation of block and character devices.
//! - The devices a shell writes to (`/dev/null`, `/dev/tty`, …): file rights only (read,
//!   write, truncate, `ioctl`), no creation.
//! - Signals scoped (ABI ≥ 6): the command cannot signal rho or any process outside its own
//!   sandbox. Landlock always keeps a sandboxed process from tracing one outside it, which
//!   also keeps `/proc/<pid>/environ` and `/proc/<pid>/mem` of rho out of reach.
//! - `--no-network`: TCP bind and connect denied (ABI ≥ 4), abstract unix sockets scoped
//!   (ABI ≥ 6).

use std::os::fd::OwnedFd;
use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope, path_beneath_rules,
};

use super::SandboxError;

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
];

/// What the ruleset confines.
pub(super) struct RulesetSpec<'a> {
    /// The file system (not `full` mode).
    pub confine_fs: bool,
    /// TCP denied (`--no-network` and ABI ≥ 4).
    pub deny_tcp: bool,
    /// Abstract unix sockets scoped (`--no-network`).
    pub scope_abstract_sockets: bool,
    /// Directories granted every right but device creation.
    pub writable: Vec<&'a Path>,
}

/// Builds the ruleset; `None` when it would confine nothing.
pub(super) fn build_ruleset(
    abi: ABI,
    spec: &RulesetSpec<'_>,
) -> Result<Option<OwnedFd>, SandboxError> {
    let err = |e: landlock::RulesetError| SandboxError(e.to_string());
    let mut ruleset = Ruleset::default().set_compatibility(CompatLevel::BestEffort);
    if spec.confine_fs {
        ruleset = ruleset
            .handle_access(AccessFs::from_all(abi))
            .map_err(err)?;
    }
    if spec.deny_tcp {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(err)?;
    }
    let mut scopes: landlock::BitFlags<Scope> = Scope::Signal.into();
    if spec.scope_abstract_sockets {
        scopes |= Scope::AbstractUnixSocket;
    }
    ruleset = ruleset.scope(scopes).map_err(err)?;
    let mut created = ruleset.create().map_err(err)?;
    if spec.confine_fs {
        let no_devices = AccessFs::from_all(abi) & !(AccessFs::MakeBlock | AccessFs::MakeChar);
        let device_rights = AccessFs::from_file(abi) | AccessFs::ReadDir;
        created = created
            .add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi)))
            .map_err(err)?
            .add_rules(path_beneath_rules(WRITABLE_DEVICES, device_rights))
            .map_err(err)?
            .add_rules(path_beneath_rules(&spec.writable, no_devices))
            .map_err(err)?;
    }
    Ok(created.into())
}
