//! The kernel features a machine kind is recorded to have (`.ci/features.env`, exported by
//! `.ci/run`): a test of a recorded feature fails when the feature is missing, never skips.

/// `RHO_CI_LANDLOCK_ABI`: the Landlock ABI the machine kind has, if recorded.
pub fn landlock_abi_recorded() -> Option<i32> {
    std::env::var("RHO_CI_LANDLOCK_ABI").ok()?.parse().ok()
}

/// `RHO_CI_USER_NAMESPACES=1`: the machine kind allows unprivileged user namespaces.
pub fn user_namespaces_recorded() -> bool {
    std::env::var("RHO_CI_USER_NAMESPACES").is_ok_and(|value| value == "1")
}

/// Whether this process is root.
pub fn is_root() -> bool {
    // SAFETY: `geteuid` cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Whether a bash child here must get namespaces: as root always, otherwise where unprivileged
/// user namespaces are recorded for the machine kind.
pub fn namespaces_expected() -> bool {
    is_root() || user_namespaces_recorded()
}
