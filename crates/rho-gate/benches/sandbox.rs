//! What the gate costs: preparing the bash sandbox (once per session), one `bash -c true`
//! spawned unconfined, confined by Landlock and seccomp alone, and with namespaces too (the
//! cost per bash call), a confined find/grep walk's thread and ruleset, and the command rules
//! on a typical command.
//!
//! Run: `cargo bench -p rho-gate --bench sandbox`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::process::CommandExt;
use std::process::Command;

use criterion::Criterion;
use rho_gate::{CommandRules, GatePolicy, PermissionMode, Sandbox};

fn spawn_true(sandbox: Option<&Sandbox>, cwd: &std::path::Path) {
    let mut command = Command::new("/bin/bash");
    command.args(["-c", "true"]).current_dir(cwd);
    if let Some(sandbox) = sandbox {
        // SAFETY: the hook only makes async-signal-safe syscalls.
        unsafe {
            command.pre_exec(sandbox.child_hook(cwd));
        }
    }
    assert!(command.status().unwrap().success());
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    let root = tempfile::tempdir().unwrap();
    let cwd = root.path();
    let policy = GatePolicy::new(PermissionMode::WorkspaceWrite, cwd);

    let mut group = criterion.benchmark_group("sandbox");
    group.bench_function("prepare (workspace-write)", |b| {
        b.iter(|| Sandbox::prepare(&policy).unwrap());
    });
    group.bench_function("bash -c true, unconfined", |b| {
        b.iter(|| spawn_true(None, cwd))
    });
    // SAFETY: the variable is read by `Sandbox::prepare` on this thread only.
    unsafe { std::env::set_var("RHO_SANDBOX_FORCE_NO_NAMESPACES", "1") };
    let plain = Sandbox::prepare(&policy).unwrap();
    // SAFETY: as above.
    unsafe { std::env::remove_var("RHO_SANDBOX_FORCE_NO_NAMESPACES") };
    group.bench_function("bash -c true, Landlock + seccomp", |b| {
        b.iter(|| spawn_true(Some(&plain), cwd));
    });
    let full = Sandbox::prepare(&policy).unwrap();
    group.bench_function("bash -c true, Landlock + seccomp + namespaces", |b| {
        b.iter(|| spawn_true(Some(&full), cwd));
    });
    group.bench_function("confined walk (thread + ruleset)", |b| {
        b.iter(|| policy.confined_walk(cwd, || std::hint::black_box(1)));
    });
    group.finish();

    let rules = CommandRules::parse(
        "[[rule]]\ndecision = \"deny\"\nprefix = \"git push\"\n\n[[rule]]\ndecision = \"ask\"\nprefix = \"rm -rf\"\n",
        std::path::Path::new("rules.toml"),
    )
    .unwrap();
    let mut group = criterion.benchmark_group("rules");
    group.bench_function("decide a typical command", |b| {
        b.iter(|| rules.decide("git diff --stat && cargo test -p rho-gate 2>&1 | tail -n 20"));
    });
    group.bench_function("decide with no rules", |b| {
        let none = CommandRules::default();
        b.iter(|| none.decide("git diff --stat && cargo test -p rho-gate 2>&1 | tail -n 20"));
    });
    group.finish();
    criterion.final_summary();
}
