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
    let log = std::env::temp_dir().join("rho-bash-0123456789abcdef.log");
    assert!(policy.check_path("read", Access::Read, &log).is_ok());
    assert!(matches!(
        policy.check_path("write", Access::Write, &log),
        Err(Refusal::OutsideRoots { .. })
    ));
    let other = std::env::temp_dir().join("other.log");
    assert!(policy.check_path("read", Access::Read, &other).is_err());
}
