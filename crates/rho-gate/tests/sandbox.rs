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

/// Whether this machine gives children namespaces: as root always, otherwise where CI has
/// recorded unprivileged user namespaces for the machine kind.
fn namespaces_expected() -> bool {
    rho_testkit::features::namespaces_expected()
}

fn run(sandbox: &Sandbox, cwd: &Path, script: &str) -> Output {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c").arg(script).current_dir(cwd);
    if let Some(tmp) = sandbox.tmp_dir() {
        cmd.env("TMPDIR", tmp);
    }
    unsafe {
        cmd.pre_exec(sandbox.child_hook(cwd));
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
            network_denied: false,
            namespaces: namespaces_expected(),
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
    let stderr = String::from_utf8_lossy(&out.stderr);
    let refused = if namespaces_expected() {
        "Read-only file system"
    } else {
        "Permission denied"
    };
    assert!(stderr.contains(refused), "{stderr}");
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
            network_denied: true,
            namespaces: namespaces_expected(),
        }
    );
    let script = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected || echo refused");
    let mut cmd = Command::new("/bin/bash");
    cmd.arg("-c").arg(&script).current_dir(root.path());
    unsafe {
        cmd.pre_exec(sandbox.child_hook(root.path()));
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
        network_denied: false,
        namespaces: true,
    };
    assert_eq!(enforced.warning(), None);
    assert_eq!(SandboxStatus::Off.warning(), None);
}

/// A git identity for the commits of a test, whoever runs it.
const IDENTITY: &str =
    "export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t";

#[test]
fn protected_paths_are_read_only_inside_a_writable_root_and_commits_still_work() {
    let Some(_) = landlock() else { return };
    if !namespaces_expected() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("auth.json"), r#"{"k":"sk-secret-auth"}"#).unwrap();
    let git = |args: &str| {
        let out = Command::new("/bin/sh")
            .arg("-c")
            .arg(format!("{IDENTITY}; git {args}"))
            .current_dir(root.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    };
    git("init -q . && git commit -q --allow-empty -m first");
    let policy =
        GatePolicy::new(PermissionMode::WorkspaceWrite, root.path()).with_rho_home(home.path());
    let sandbox = Sandbox::prepare(&policy).unwrap();
    let script = format!(
        r#"{IDENTITY}
           for target in .rho/settings.json .git/config .git/hooks/pre-commit .git/info/attributes {auth}; do
             (echo x > "$target") 2>/dev/null && echo "wrote $target"
           done
           mv .git .git-gone 2>/dev/null && echo "moved .git"
           mv .rho .rho-gone 2>/dev/null && echo "moved .rho"
           cat {auth}
           chmod 000 {home} 2>/dev/null && echo "chmod outside"
           touch -d 2001-01-01 {home} 2>/dev/null && echo "touch outside"
           echo hi > /dev/shm/rho-shm-test && echo "shm private"
           git commit -q --allow-empty -m second && echo committed
           echo in > inside.txt && echo "wrote inside""#,
        auth = home.path().join("auth.json").display(),
        home = home.path().display(),
    );
    let out = run(&sandbox, root.path(), &script);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "wrote {auth}\nshm private\ncommitted\nwrote inside\n",
            auth = home.path().join("auth.json").display()
        ),
        "{out:?}"
    );
    // The credential file reads as empty and a write to it goes nowhere.
    assert_eq!(
        std::fs::read_to_string(home.path().join("auth.json")).unwrap(),
        r#"{"k":"sk-secret-auth"}"#
    );
    assert!(!Path::new("/dev/shm/rho-shm-test").exists());
    assert!(root.path().join(".rho").is_dir());
    assert!(!root.path().join(".rho/settings.json").exists());
    assert!(!root.path().join(".git/hooks/pre-commit").exists());
    let log = Command::new("git")
        .args(["log", "--format=%s"])
        .current_dir(root.path())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&log.stdout), "second\nfirst\n");
}

/// `.ci/features.env` records what the machine kind has; a recorded feature that is missing
/// fails here (and in the tests that use it), never skips.
#[test]
fn the_kernel_features_recorded_for_this_machine_kind_are_here() {
    if let Some(recorded) = rho_testkit::features::landlock_abi_recorded() {
        let abi = landlock_abi().unwrap_or(0);
        assert!(abi >= recorded, "Landlock ABI {abi}, recorded {recorded}");
    }
    if rho_testkit::features::namespaces_expected() {
        let root = tempfile::tempdir().unwrap();
        let sandbox = Sandbox::prepare(&GatePolicy::new(
            PermissionMode::WorkspaceWrite,
            root.path(),
        ))
        .unwrap();
        assert!(
            matches!(
                sandbox.status(),
                SandboxStatus::Enforced {
                    namespaces: true,
                    ..
                }
            ),
            "{:?} {:?}",
            sandbox.status(),
            sandbox.gaps()
        );
    }
}
