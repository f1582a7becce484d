//! The git branch in the footer, read from `.git/HEAD` without running git.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use rho_tui::status::git_branch;
use rho_tui::view::status::footer_lines;
use rho_tui::{App, Startup};

use crate::events::info;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn the_branch_is_read_from_head_in_a_parent_directory() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join(".git/HEAD"),
        "ref: refs/heads/feature/tui\n",
    );
    std::fs::create_dir_all(dir.path().join("crates/rho")).unwrap();
    assert_eq!(
        git_branch(&dir.path().join("crates/rho")),
        Some("feature/tui".to_owned())
    );
}

#[test]
fn a_detached_head_shows_detached() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join(".git/HEAD"),
        "3f2a9c1e0b7d4a5f6e8c9b0a1d2e3f4a5b6c7d8e\n",
    );
    assert_eq!(git_branch(dir.path()), Some("detached".to_owned()));
}

#[test]
fn a_worktree_follows_its_gitdir_file() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("main/.git/worktrees/wt/HEAD"),
        "ref: refs/heads/wt-branch\n",
    );
    write(
        &dir.path().join("wt/.git"),
        "gitdir: ../main/.git/worktrees/wt\n",
    );
    assert_eq!(
        git_branch(&dir.path().join("wt")),
        Some("wt-branch".to_owned())
    );
}

#[test]
fn outside_a_repository_there_is_no_branch() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(git_branch(dir.path()), None);
}

#[test]
fn the_footer_shows_the_branch_after_the_cwd_as_pi_does() {
    let startup = Startup {
        git_branch: Some("main".to_owned()),
        ..Startup::default()
    };
    let app = App::starting(info(), startup);
    let [cwd, _] = footer_lines(app.status(), 40);
    assert_eq!(cwd.to_string(), "~/src/rho (main)");
}
