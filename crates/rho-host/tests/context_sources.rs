#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Pi 1.6's prompt inputs beyond 0.73.1: `AGENTS.override.md`, only regular files, a BOM
//! stripped, a nested git worktree shadowing its main repository's file, and skills from
//! `.agents/skills` (trusted projects, up to the git root) and `~/.agents/skills` (always).

use std::fs;
use std::path::Path;

use rho_host::prompt::{SkillOptions, load_context_files, load_skills};

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

#[test]
fn context_files_prefer_the_override_skip_directories_and_strip_the_bom() {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    let (home, cwd) = (root.join("home"), root.join("repo/sub"));
    fs::create_dir_all(&home).unwrap();
    write(&root.join("repo/AGENTS.override.md"), "Override.\n");
    write(&root.join("repo/AGENTS.md"), "Plain.\n");
    fs::create_dir_all(cwd.join("AGENTS.override.md")).unwrap();
    write(&cwd.join("CLAUDE.md"), "\u{feff}Claude.\n");
    let (files, warnings) = load_context_files(&cwd, &home);
    assert!(warnings.is_empty(), "{warnings:?}");
    let found: Vec<(String, String)> = files
        .iter()
        .map(|f| {
            (
                f.path.strip_prefix(&root).unwrap().display().to_string(),
                f.content.clone(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                "repo/AGENTS.override.md".to_owned(),
                "Override.\n".to_owned()
            ),
            ("repo/sub/CLAUDE.md".to_owned(), "Claude.\n".to_owned()),
        ]
    );
}

#[test]
fn a_nested_worktrees_context_file_shadows_its_main_repositorys() {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    let main = root.join("main");
    let worktree = main.join("wt/feature");
    write(&main.join(".git/HEAD"), "ref: refs/heads/main\n");
    write(
        &main.join(".git/worktrees/feature/HEAD"),
        "ref: refs/heads/feature\n",
    );
    write(&main.join(".git/worktrees/feature/commondir"), "../..\n");
    write(
        &worktree.join(".git"),
        &format!(
            "gitdir: {}\n",
            main.join(".git/worktrees/feature").display()
        ),
    );
    write(&main.join("AGENTS.md"), "Main.\n");
    write(&worktree.join("AGENTS.md"), "Worktree.\n");
    let (files, _) = load_context_files(&worktree, &root.join("home"));
    let contents: Vec<&str> = files.iter().map(|f| f.content.as_str()).collect();
    assert_eq!(contents, ["Worktree.\n"]);
    // Outside the worktree the main repository's file is its own.
    let (files, _) = load_context_files(&main, &root.join("home"));
    let contents: Vec<&str> = files.iter().map(|f| f.content.as_str()).collect();
    assert_eq!(contents, ["Main.\n"]);
}

#[test]
fn agents_skills_come_from_the_project_up_to_the_git_root_and_from_the_users_home() {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    let skill =
        |name: &str| format!("---\nname: {name}\ndescription: The {name} skill.\n---\nDo it.\n");
    let (user, repo) = (root.join("user"), root.join("outer/repo"));
    let cwd = repo.join("pkg");
    fs::create_dir_all(repo.join(".git")).unwrap();
    fs::create_dir_all(&cwd).unwrap();
    write(&cwd.join(".agents/skills/near/SKILL.md"), &skill("near"));
    write(&repo.join(".agents/skills/tools/lint.md"), &skill("lint"));
    write(&repo.join(".agents/skills/loose.md"), &skill("loose"));
    write(
        &root.join("outer/.agents/skills/far/SKILL.md"),
        &skill("far"),
    );
    write(&user.join(".agents/skills/mine/SKILL.md"), &skill("mine"));
    let names = |include_project: bool| -> Vec<String> {
        let loaded = load_skills(&SkillOptions {
            cwd: cwd.clone(),
            rho_home: root.join("home"),
            skill_paths: vec![],
            include_defaults: true,
            include_project,
            user_home: Some(user.clone()),
        });
        loaded.skills.iter().map(|s| s.name.clone()).collect()
    };
    // `loose.md` at an `.agents/skills` root is not a skill; `far` is above the git root.
    assert_eq!(names(true), ["near", "lint", "mine"]);
    assert_eq!(names(false), ["mine"]);
}
