//! The path gate's decisions on real files: roots, symlinks, secrets, read-only, bad paths.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use rho_gate::{Access, GatePolicy, PermissionMode, Refusal, SecretRules, real_path};

fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir(&root).unwrap();
    (dir, root)
}

#[test]
fn a_path_outside_the_roots_is_refused_with_the_allow_dir_hint() {
    let (_dir, root) = project();
    let policy = GatePolicy::new(PermissionMode::WorkspaceWrite, &root);
    assert_eq!(
        policy
            .check_path("read", Access::Read, Path::new("/etc/passwd"))
            .unwrap_err()
            .to_string(),
        format!(
            "Path /etc/passwd is outside the allowed directories: {}. Use --allow-dir to allow it.",
            root.display()
        )
    );
}

#[test]
fn allow_dirs_extend_the_roots() {
    let (dir, root) = project();
    let extra = dir.path().join("extra");
    std::fs::create_dir(&extra).unwrap();
    let policy =
        GatePolicy::new(PermissionMode::WorkspaceWrite, &root).with_allow_dirs(["../extra"]);
    let file = extra.join("f.txt");
    assert_eq!(
        policy.check_path("write", Access::Write, &file).unwrap(),
        real_path(&file).unwrap()
    );
}

#[test]
fn a_dangling_symlink_is_followed_to_where_a_write_would_create_the_file() {
    let (dir, root) = project();
    symlink(dir.path().join("outside/new.txt"), root.join("link")).unwrap();
    let policy = GatePolicy::new(PermissionMode::WorkspaceWrite, &root);
    assert!(matches!(
        policy.check_path("write", Access::Write, &root.join("link")),
        Err(Refusal::OutsideRoots { .. })
    ));
}

#[test]
fn a_symlink_loop_is_refused_as_a_bad_path() {
    let (_dir, root) = project();
    symlink(root.join("b"), root.join("a")).unwrap();
    symlink(root.join("a"), root.join("b")).unwrap();
    let policy = GatePolicy::new(PermissionMode::WorkspaceWrite, &root);
    assert_eq!(
        policy
            .check_path("read", Access::Read, &root.join("a"))
            .unwrap_err(),
        Refusal::BadPath {
            path: root.join("a").display().to_string(),
            problem: "it runs through too many symbolic links (a loop?)".into()
        }
    );
}

#[test]
fn secrets_are_refused_by_name_and_through_symlinks_unless_allowed() {
    let (_dir, root) = project();
    std::fs::write(root.join(".env"), "KEY=1").unwrap();
    symlink(root.join(".env"), root.join("notes.txt")).unwrap();
    let policy = GatePolicy::new(PermissionMode::WorkspaceWrite, &root);
    let env = real_path(&root.join(".env")).unwrap();
    for asked in [".env", "notes.txt"] {
        assert_eq!(
            policy.check_path("read", Access::Read, &root.join(asked)),
            Err(Refusal::Secret {
                path: env.display().to_string(),
                glob: ".env*".into()
            })
        );
    }
    assert!(matches!(
        policy.check_path("read", Access::Read, &root.join("sub/.aws/credentials")),
        Err(Refusal::Secret { glob, .. }) if glob == ".aws/credentials"
    ));
    let allowing = policy
        .clone()
        .with_secrets(SecretRules::with_defaults(["*.secret"], [".env"]).unwrap());
    assert_eq!(
        allowing.check_path("read", Access::Read, &root.join(".env")),
        Ok(env)
    );
    assert!(matches!(
        allowing.check_path("read", Access::Read, &root.join("a.secret")),
        Err(Refusal::Secret { .. })
    ));
}

#[test]
fn read_only_refuses_writes_and_full_allows_everything_but_secrets() {
    let (_dir, root) = project();
    let read_only = GatePolicy::new(PermissionMode::ReadOnly, &root);
    assert_eq!(
        read_only
            .check_path("edit", Access::Write, &root.join("a"))
            .unwrap_err()
            .to_string(),
        "The edit tool is not available in read-only mode (--permission read-only). Use --permission workspace-write to allow changes."
    );
    let full = GatePolicy::new(PermissionMode::Full, &root);
    assert_eq!(
        full.check_path("read", Access::Read, Path::new("/etc/passwd")),
        Ok(PathBuf::from("/etc/passwd"))
    );
    assert!(
        full.check_path("read", Access::Read, &root.join("id_rsa"))
            .is_err()
    );
}

#[test]
fn bash_full_output_files_are_readable_but_not_writable() {
    let (_dir, root) = project();
    let policy = GatePolicy::new(PermissionMode::WorkspaceWrite, &root);
    let (log, _file) = rho_gate::create_output_file("rho-bash", ".log").unwrap();
    assert!(policy.check_path("read", Access::Read, &log).is_ok());
    assert!(matches!(
        policy.check_path("write", Access::Write, &log),
        Err(Refusal::OutsideRoots { .. })
    ));
    // The shared temp dir is not the output directory.
    let shared = std::env::temp_dir().join(log.file_name().unwrap());
    assert!(policy.check_path("read", Access::Read, &shared).is_err());
    std::fs::remove_file(log).unwrap();
}

/// A project with rho's home beside it holding a credential file.
fn project_with_home() -> (tempfile::TempDir, PathBuf, PathBuf, GatePolicy) {
    let (dir, root) = project();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join(root.file_name().unwrap());
    let home = base.join("home");
    std::fs::create_dir(&home).unwrap();
    std::fs::write(home.join("auth.json"), "{\"k\":\"SECRET\"}").unwrap();
    let policy = GatePolicy::new(PermissionMode::WorkspaceWrite, &root).with_rho_home(&home);
    (dir, root, home, policy)
}

#[test]
fn a_hard_link_of_a_credential_file_is_refused_but_other_multi_link_files_are_read() {
    let (_dir, root, home, policy) = project_with_home();
    std::fs::hard_link(home.join("auth.json"), root.join("notes.txt")).unwrap();
    let refused = policy
        .open_for_read("read", &root.join("notes.txt"))
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        format!(
            "Path {} is another name (a hard link) of a secret file and is never read or written in place by the file tools.",
            root.join("notes.txt").display()
        )
    );
    // pnpm's hard links: several names, none of them a secret.
    std::fs::write(root.join("a.js"), "x").unwrap();
    std::fs::hard_link(root.join("a.js"), root.join("b.js")).unwrap();
    assert!(policy.open_for_read("read", &root.join("b.js")).is_ok());
}

#[test]
fn writing_a_hard_linked_file_replaces_this_name_and_leaves_the_other_alone() {
    use std::os::unix::fs::MetadataExt;
    let (dir, root) = project();
    let outside = dir.path().join("outside.txt");
    std::fs::write(&outside, "OUTSIDE").unwrap();
    std::fs::hard_link(&outside, root.join("linked.txt")).unwrap();
    let policy = GatePolicy::new(PermissionMode::WorkspaceWrite, &root);
    policy
        .write_file("write", &root.join("linked.txt"), b"new")
        .unwrap();
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "OUTSIDE");
    assert_eq!(
        std::fs::read_to_string(root.join("linked.txt")).unwrap(),
        "new"
    );
    assert_eq!(std::fs::metadata(&outside).unwrap().nlink(), 1);
    // Nothing but the file itself is left in the directory.
    let names: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["linked.txt"]);
}

#[test]
fn fifos_and_devices_are_refused_without_blocking() {
    let (_dir, root) = project();
    let fifo = root.join("pipe");
    let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    let policy = GatePolicy::new(PermissionMode::WorkspaceWrite, &root);
    let expected = format!(
        "Path {} is a FIFO (named pipe), not a regular file; the file tools only read and write regular files.",
        fifo.display()
    );
    let read = policy.open_for_read("read", &fifo).unwrap_err();
    assert_eq!(read.to_string(), expected);
    let edit = policy.open_for_edit("edit", &fifo).unwrap_err();
    assert_eq!(edit.to_string(), expected);
    let write = policy.write_file("write", &fifo, b"x").unwrap_err();
    assert_eq!(write.to_string(), expected);
    // A device reached through a symlink inside the roots is outside them; in full mode it
    // is refused as a device.
    symlink("/dev/zero", root.join("zero")).unwrap();
    let full = GatePolicy::new(PermissionMode::Full, &root);
    let device = full.open_for_read("read", &root.join("zero")).unwrap_err();
    assert!(
        device.to_string().contains("is a character device"),
        "{device}"
    );
}

#[test]
fn missing_parents_are_made_inside_the_roots_and_never_through_a_symlink_out() {
    let (dir, root) = project();
    let policy = GatePolicy::new(PermissionMode::WorkspaceWrite, &root);
    policy
        .write_file("write", &root.join("a/b/c/new.txt"), b"x")
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("a/b/c/new.txt")).unwrap(),
        "x"
    );
    // A symlink in the part that exists, pointing out: refused before anything is made.
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    symlink(&outside, root.join("out")).unwrap();
    let refused = policy
        .write_file("write", &root.join("out/x/y/z.txt"), b"x")
        .unwrap_err();
    assert!(matches!(
        refused,
        rho_gate::GuardedOpenError::Refused(Refusal::OutsideRoots { .. })
    ));
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    // Parents are never made inside a protected directory.
    let protected = policy
        .write_file("write", &root.join(".rho/sub/settings.json"), b"{}")
        .unwrap_err();
    assert!(matches!(
        protected,
        rho_gate::GuardedOpenError::Refused(Refusal::Protected { .. })
    ));
    assert!(!root.join(".rho").exists());
}
