//! The seccomp filter of a confined `bash` child: what Landlock and the namespaces cannot say.
//!
//! - Always: no block or character device is created (`mknod`), and `io_uring` (whose
//!   operations would bypass the socket rule below) is unavailable.
//! - `--no-network`: `socket` fails for every family but netlink, so no TCP, UDP, raw or
//!   unix-domain socket is opened — a unix socket outside the workspace (`docker.sock`, an ssh
//!   agent) is as unreachable as the network. `socketpair` still works (it reaches nothing).
//!
//! The filter is compiled once, before any fork; the child installs it with one syscall.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// A filter that could not be compiled (an architecture seccompiler does not know).
#[derive(Debug, thiserror::Error)]
#[error("Cannot compile the seccomp filter: {0}")]
pub struct SeccompError(String);

/// The compiled filter for `--no-network` (`deny_sockets`) or not.
pub(super) fn compile(deny_sockets: bool) -> Result<BpfProgram, SeccompError> {
    let arch =
        TargetArch::try_from(std::env::consts::ARCH).map_err(|e| SeccompError(e.to_string()))?;
    let rule = |conditions: Vec<SeccompCondition>| {
        SeccompRule::new(conditions).map_err(|e| SeccompError(e.to_string()))
    };
    let condition = |arg: u8, op: SeccompCmpOp, value: u64| {
        SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value)
            .map_err(|e| SeccompError(e.to_string()))
    };
    let file_type = u64::from(libc::S_IFMT);
    let device_rules = |mode_arg: u8| -> Result<Vec<SeccompRule>, SeccompError> {
        [libc::S_IFBLK, libc::S_IFCHR]
            .into_iter()
            .map(|kind| {
                rule(vec![condition(
                    mode_arg,
                    SeccompCmpOp::MaskedEq(file_type),
                    u64::from(kind),
                )?])
            })
            .collect()
    };
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_mknodat, device_rules(2)?);
    #[cfg(target_arch = "x86_64")]
    rules.insert(libc::SYS_mknod, device_rules(1)?);
    for call in [
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
    ] {
        rules.insert(call, Vec::new());
    }
    if deny_sockets {
        let not_netlink = condition(0, SeccompCmpOp::Ne, libc::AF_NETLINK as u64)?;
        rules.insert(libc::SYS_socket, vec![rule(vec![not_netlink])?]);
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| SeccompError(e.to_string()))?;
    BpfProgram::try_from(filter).map_err(|e| SeccompError(e.to_string()))
}
