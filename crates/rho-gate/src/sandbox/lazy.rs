//! The sandbox as a session holds it: prepared on the first `bash` call, not at start-up.
//! Preparing costs about 0.7 ms (a private temp dir, a forked probe of the namespaces, the
//! Landlock ruleset, the seccomp filter), which a run that never calls `bash` should not pay.
//!
//! What the kernel cannot give is still said at start-up: [`LazySandbox::startup_warnings`]
//! predicts it from cheap checks (the Landlock ABI, `CAP_SYS_ADMIN` as root, the kernel's
//! user-namespace switches otherwise). Where the real probe at the first call disagrees, the
//! call's result says so ([`LazySandbox::unpredicted_warnings`]).

use std::sync::OnceLock;

use super::namespace::{Privilege, predict};
use super::{
    FORCE_NO_NAMESPACES_ENV, FORCE_UNAVAILABLE_ENV, SCOPE_ABI, Sandbox, SandboxError, forced,
    landlock_abi,
};
use crate::mode::PermissionMode;
use crate::policy::GatePolicy;

/// A sandbox prepared on first use.
#[derive(Debug)]
pub struct LazySandbox {
    policy: GatePolicy,
    prepared: OnceLock<Result<Sandbox, String>>,
    predicted: Vec<String>,
}

impl From<Sandbox> for LazySandbox {
    /// An already prepared sandbox.
    fn from(sandbox: Sandbox) -> Self {
        let policy = sandbox.policy.clone();
        let predicted = sandbox.warnings();
        LazySandbox {
            policy,
            prepared: OnceLock::from(Ok(sandbox)),
            predicted,
        }
    }
}

impl LazySandbox {
    /// A sandbox for `policy`, prepared when [`LazySandbox::get`] is first called.
    pub fn new(policy: &GatePolicy) -> LazySandbox {
        LazySandbox {
            predicted: predict_warnings(policy),
            policy: policy.clone(),
            prepared: OnceLock::new(),
        }
    }

    /// The lines to say at start-up: what this kernel will not give (predicted, cheaply).
    pub fn startup_warnings(&self) -> &[String] {
        &self.predicted
    }

    /// The prepared sandbox, preparing it now if needed. Blocking (forks a probe): call it off
    /// the async runtime.
    pub fn get(&self) -> Result<&Sandbox, SandboxError> {
        self.prepared
            .get_or_init(|| Sandbox::prepare(&self.policy).map_err(|error| error.0))
            .as_ref()
            .map_err(|message| SandboxError(message.clone()))
    }

    /// The prepared sandbox's warnings that start-up did not predict (empty before it is
    /// prepared, and when the prediction was right).
    pub fn unpredicted_warnings(&self) -> Vec<String> {
        match self.prepared.get() {
            Some(Ok(sandbox)) => sandbox
                .warnings()
                .into_iter()
                .filter(|warning| !self.predicted.iter().any(|p| same_gap(p, warning)))
                .collect(),
            Some(Err(_)) | None => Vec::new(),
        }
    }
}

/// What [`Sandbox::prepare`] would report as warnings, from checks that fork nothing.
fn predict_warnings(policy: &GatePolicy) -> Vec<String> {
    let confine_fs = policy.mode() != PermissionMode::Full;
    if !confine_fs && policy.network() {
        return Vec::new();
    }
    let abi = match forced(FORCE_UNAVAILABLE_ENV).map_or_else(landlock_abi, Err) {
        Ok(abi) => abi,
        Err(reason) => {
            let status = super::SandboxStatus::Unavailable { reason };
            return status.warning().into_iter().collect();
        }
    };
    let namespaces =
        forced(FORCE_NO_NAMESPACES_ENV).map_or_else(|| predict(Privilege::current()), Err);
    let mut gaps = Vec::new();
    if abi < SCOPE_ABI {
        gaps.push(super::scope_gap(abi));
    }
    if let (Err(reason), true) = (namespaces, confine_fs) {
        gaps.push(super::namespace_gap(&reason));
    }
    gaps.into_iter()
        .map(|gap| format!("bash sandbox: {gap}"))
        .collect()
}

/// Two warnings about the same gap, whatever reason each gives in parentheses.
fn same_gap(a: &str, b: &str) -> bool {
    a.split('(').next() == b.split('(').next()
}
