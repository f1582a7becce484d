//! The Landlock sandbox on real child processes: writes inside the roots work, writes outside
//! fail, read-only writes nowhere, `--no-network` denies TCP. Skipped, saying so, where the
//! kernel has no Landlock.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output};

use rho_gate::sandbox::landlock_abi;
use rho_gate::{GatePolicy, PermissionMode, Sandbox, SandboxStatus};

/// `None` (after saying why) where Landlock is unavailable; in CI its absence fails the test.
fn landlock() -> Option<i32> {
    rho_testkit::prerequisite::require(
        "the sandbox test needs Landlock",
        landlock_abi().map_err(|reason| reason.to_string()),
    )
}

fn run(sandbox: &Sandbox, cwd: &Path, script: &str) -> Output {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c").arg(script).current_dir(cwd);
    if let Some(tmp) = sandbox.tmp_dir() {
        cmd.env("TMPDIR", tmp);
    }
    unsafe {
        cmd.pre_exec(sandbox.child_hook());
    }
    cmd.output().unwrap()
}

#[test]
fn workspace_write_allows_writes_in_the_roots_and_tmpdir_and_denies_them_elsewhere() {
    let Some(abi) = landlock() else { return };
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let policy = GatePolicy::new(PermissionMode::WorkspaceWrite, root.path());
    let sandbox = Sandbox::prepare(&policy).unwrap();
    assert_eq!(
        sandbox.status(),
        &SandboxStatus::Enforced {
            abi,
            tcp_denied: false
        }
    );
    let target = outside.path().join("x");
    let out = run(
        &sandbox,
        root.path(),
        &format!(
            "echo in > inside.txt && echo t > \"$TMPDIR/t\" && cat /etc/hostname >/dev/null && echo x > {} ; echo rc=$?",
            target.display()
        ),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout, "rc=2\n", "{out:?}");
    assert_eq!(
        std::fs::read_to_string(root.path().join("inside.txt")).unwrap(),
        "in\n"
    );
    assert!(!target.exists());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Permission denied"));
}

#[test]
fn read_only_writes_nowhere_but_dev_null() {
    let Some(_) = landlock() else { return };
    let root = tempfile::tempdir().unwrap();
    let policy = GatePolicy::new(PermissionMode::ReadOnly, root.path());
    let sandbox = Sandbox::prepare(&policy).unwrap();
    assert_eq!(sandbox.tmp_dir(), None);
    let out = run(
        &sandbox,
        root.path(),
        "echo gone > /dev/null && ls >/dev/null && echo x > inside.txt; echo rc=$?",
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "rc=2\n");
    assert!(!root.path().join("inside.txt").exists());
}

#[test]
fn no_network_denies_tcp_connect_independently_of_the_file_mode() {
    let Some(abi) = landlock() else { return };
    let tcp = (abi >= 4)
        .then_some(())
        .ok_or_else(|| format!("the kernel has Landlock ABI {abi}"));
    if rho_testkit::prerequisite::require("TCP restriction needs Landlock ABI 4", tcp).is_none() {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let root = tempfile::tempdir().unwrap();
    let policy = GatePolicy::new(PermissionMode::Full, root.path()).with_network(false);
    let sandbox = Sandbox::prepare(&policy).unwrap();
    assert_eq!(
        sandbox.status(),
        &SandboxStatus::Enforced {
            abi,
            tcp_denied: true
        }
    );
    let script = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected || echo refused");
    let mut cmd = Command::new("/bin/bash");
    cmd.arg("-c").arg(&script);
    unsafe {
        cmd.pre_exec(sandbox.child_hook());
    }
    let out = cmd.output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "refused\n");
    // Full mode confines no files: a write outside any root works.
    let outside = tempfile::tempdir().unwrap();
    let out = run(
        &sandbox,
        root.path(),
        &format!("echo x > {}/f && echo ok", outside.path().display()),
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ok\n");

    let open = Sandbox::prepare(&GatePolicy::new(PermissionMode::Full, root.path())).unwrap();
    assert_eq!(open.status(), &SandboxStatus::Off);
    let mut cmd = Command::new("/bin/bash");
    cmd.arg("-c").arg(&script);
    assert_eq!(
        String::from_utf8_lossy(&cmd.output().unwrap().stdout),
        "connected\n"
    );
}

#[test]
fn the_private_tmpdir_is_removed_with_the_sandbox() {
    let Some(_) = landlock() else { return };
    let root = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::prepare(&GatePolicy::new(
        PermissionMode::WorkspaceWrite,
        root.path(),
    ))
    .unwrap();
    let tmp = sandbox.tmp_dir().unwrap().to_path_buf();
    assert!(tmp.is_dir());
    drop(sandbox);
    assert!(!tmp.exists());
}

#[test]
fn an_unavailable_sandbox_says_so_and_an_enforced_one_says_nothing() {
    let unavailable = SandboxStatus::Unavailable {
        reason: "the kernel does not support Landlock".into(),
    };
    assert_eq!(
        unavailable.warning().as_deref(),
        Some(
            "bash sandbox unavailable (the kernel does not support Landlock); commands run unconfined, only the path gate of the file tools applies"
        )
    );
    let enforced = SandboxStatus::Enforced {
        abi: 7,
        tcp_denied: false,
    };
    assert_eq!(enforced.warning(), None);
    assert_eq!(SandboxStatus::Off.warning(), None);
}
