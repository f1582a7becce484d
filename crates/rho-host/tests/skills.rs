#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Skills (Pi's skills.md): discovery, validation warnings, collisions, the prompt block and
//! `/skill:name` expansion, on real files.

use std::fs;
use std::path::{Path, PathBuf};

use rho_host::prompt::{
    DiagnosticKind, PromptDiagnostic, PromptOptions, PromptResources, Skill, SkillOptions,
    SkillReader, expand_skill_command, format_skills_for_prompt, load_skills,
};

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn skill_md(name: Option<&str>, description: Option<&str>) -> String {
    let mut text = String::from("---\n");
    if let Some(name) = name {
        text.push_str(&format!("name: {name}\n"));
    }
    if let Some(description) = description {
        text.push_str(&format!("description: {description}\n"));
    }
    text.push_str("---\n# Body\n");
    text
}

struct Dirs {
    _dir: tempfile::TempDir,
    home: PathBuf,
    cwd: PathBuf,
}

fn dirs() -> Dirs {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let cwd = dir.path().join("cwd");
    fs::create_dir_all(&home).unwrap();
    fs::create_dir_all(&cwd).unwrap();
    Dirs {
        home,
        cwd,
        _dir: dir,
    }
}

fn defaults(d: &Dirs) -> SkillOptions {
    SkillOptions {
        cwd: d.cwd.clone(),
        rho_home: d.home.clone(),
        skill_paths: vec![],
        include_defaults: true,
        include_project: true,
        user_home: None,
    }
}

fn warning(message: &str, path: &Path) -> PromptDiagnostic {
    PromptDiagnostic {
        kind: DiagnosticKind::Warning,
        message: message.into(),
        path: path.into(),
        winner: None,
    }
}

#[test]
fn invalid_names_load_with_warnings_and_a_missing_description_keeps_the_skill_out() {
    let d = dirs();
    let skills = d.home.join("skills");
    let bad_name = skills.join("Bad--Dir-").join("SKILL.md");
    write(&bad_name, &skill_md(None, Some("Has a bad name.")));
    let mismatch = skills.join("dir-name").join("SKILL.md");
    write(
        &mismatch,
        &skill_md(Some("other-name"), Some("Mismatched.")),
    );
    let no_description = skills.join("quiet").join("SKILL.md");
    write(&no_description, &skill_md(Some("quiet"), None));
    let long = skills.join("long").join("SKILL.md");
    write(&long, &skill_md(None, Some(&"x".repeat(1025))));

    let loaded = load_skills(&defaults(&d));
    let names: Vec<&str> = loaded.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, vec!["Bad--Dir-", "other-name", "long"]);
    assert_eq!(
        loaded.diagnostics,
        vec![
            warning(
                "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)",
                &bad_name
            ),
            warning("name must not start or end with a hyphen", &bad_name),
            warning("name must not contain consecutive hyphens", &bad_name),
            warning(
                "name \"other-name\" does not match parent directory \"dir-name\"",
                &mismatch
            ),
            warning("description exceeds 1024 characters (1025)", &long),
            warning("description is required", &no_description),
        ]
    );
}

#[test]
fn name_longer_than_64_characters_is_reported_with_its_length() {
    let d = dirs();
    let name = "a".repeat(65);
    let path = d.home.join("skills").join(&name).join("SKILL.md");
    write(&path, &skill_md(None, Some("Long name.")));
    let loaded = load_skills(&defaults(&d));
    assert_eq!(
        loaded.diagnostics,
        vec![warning("name exceeds 64 characters (65)", &path)]
    );
    assert_eq!(loaded.skills.len(), 1);
}

#[test]
fn invalid_frontmatter_is_a_warning_and_no_skill() {
    let d = dirs();
    let path = d.home.join("skills").join("colon").join("SKILL.md");
    write(&path, "---\ndescription: Use this: when stuck\n---\nbody");
    let loaded = load_skills(&defaults(&d));
    assert_eq!(loaded.skills, vec![]);
    assert_eq!(loaded.diagnostics.len(), 1);
    assert_eq!(loaded.diagnostics[0].path, path);
    assert!(
        loaded.diagnostics[0].message.contains("nested mappings"),
        "{:?}",
        loaded.diagnostics
    );
}

#[test]
fn discovery_takes_root_md_files_and_skill_dirs_but_not_hidden_ignored_or_nested_ones() {
    let d = dirs();
    let root = d.home.join("skills");
    write(
        &root.join("alpha.md"),
        &skill_md(Some("skills"), Some("Root file skill.")),
    );
    write(
        &root.join("group").join("beta").join("SKILL.md"),
        &skill_md(None, Some("Nested skill.")),
    );
    // Inside a skill directory nothing further is searched.
    write(
        &root
            .join("group")
            .join("beta")
            .join("inner")
            .join("SKILL.md"),
        &skill_md(None, Some("Hidden.")),
    );
    // Plain .md files below the root are not skills.
    write(
        &root.join("group").join("notes.md"),
        &skill_md(None, Some("Not a skill.")),
    );
    write(
        &root.join(".hidden").join("SKILL.md"),
        &skill_md(None, Some("Hidden.")),
    );
    write(
        &root.join("node_modules").join("dep").join("SKILL.md"),
        &skill_md(None, Some("Dep.")),
    );
    write(&root.join(".gitignore"), "ignored/\n");
    write(
        &root.join("ignored").join("SKILL.md"),
        &skill_md(None, Some("Ignored.")),
    );

    let loaded = load_skills(&defaults(&d));
    let found: Vec<(&str, &Path)> = loaded
        .skills
        .iter()
        .map(|s| (s.name.as_str(), s.file_path.as_path()))
        .collect();
    let beta = root.join("group").join("beta").join("SKILL.md");
    assert_eq!(
        found,
        vec![
            ("skills", root.join("alpha.md").as_path()),
            ("beta", beta.as_path())
        ]
    );
    assert_eq!(loaded.diagnostics, vec![]);
}

#[test]
fn project_skill_wins_a_name_collision_and_the_loser_is_reported() {
    let d = dirs();
    let global = d.home.join("skills").join("dup").join("SKILL.md");
    let project = d
        .cwd
        .join(".rho")
        .join("skills")
        .join("dup")
        .join("SKILL.md");
    write(&global, &skill_md(None, Some("Global.")));
    write(&project, &skill_md(None, Some("Project.")));
    let loaded = load_skills(&defaults(&d));
    assert_eq!(
        loaded.skills,
        vec![Skill {
            name: "dup".into(),
            description: "Project.".into(),
            file_path: project.clone(),
            base_dir: project.parent().unwrap().to_path_buf(),
            disable_model_invocation: false,
        }]
    );
    assert_eq!(
        loaded.diagnostics,
        vec![PromptDiagnostic {
            kind: DiagnosticKind::Collision,
            message: "name \"dup\" collision".into(),
            path: global,
            winner: Some(project),
        }]
    );
}

#[test]
fn explicit_skill_paths_load_with_no_skills_and_bad_ones_are_reported() {
    let d = dirs();
    write(
        &d.home.join("skills").join("default-one").join("SKILL.md"),
        &skill_md(None, Some("Default.")),
    );
    let explicit = d.cwd.join("extra").join("SKILL.md");
    write(&explicit, &skill_md(Some("extra"), Some("Explicit.")));
    write(&d.cwd.join("notes.txt"), "text");
    let loaded = load_skills(&SkillOptions {
        skill_paths: vec![
            "extra/SKILL.md".into(),
            "missing".into(),
            "notes.txt".into(),
        ],
        include_defaults: false,
        include_project: true,
        user_home: None,
        ..defaults(&d)
    });
    let names: Vec<&str> = loaded.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, vec!["extra"]);
    assert_eq!(
        loaded.diagnostics,
        vec![
            warning("skill path does not exist", &d.cwd.join("missing")),
            warning(
                "skill path is not a markdown file",
                &d.cwd.join("notes.txt")
            ),
        ]
    );
}

#[test]
fn skills_block_leaves_out_skills_the_model_may_not_invoke() {
    let visible = Skill {
        name: "a".into(),
        description: "It's \"quoted\"".into(),
        file_path: "/s/a/SKILL.md".into(),
        base_dir: "/s/a".into(),
        disable_model_invocation: false,
    };
    let hidden = Skill {
        name: "b".into(),
        disable_model_invocation: true,
        ..visible.clone()
    };
    assert_eq!(
        format_skills_for_prompt(std::slice::from_ref(&hidden), SkillReader::Read),
        ""
    );
    assert_eq!(
        format_skills_for_prompt(&[hidden, visible], SkillReader::Read),
        "\n\nThe following skills provide specialized instructions for specific tasks.\nUse the read tool to load a skill's file when the task matches its description.\nResolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.\n\n<available_skills>\n  <skill>\n    <name>a</name>\n    <description>It&apos;s &quot;quoted&quot;</description>\n    <location>/s/a/SKILL.md</location>\n  </skill>\n</available_skills>"
    );
}

#[test]
fn skill_command_puts_the_skill_body_and_the_arguments_into_the_prompt() {
    let d = dirs();
    let path = d.home.join("skills").join("deploy").join("SKILL.md");
    write(
        &path,
        "---\nname: deploy\ndescription: Deploys.\ndisable-model-invocation: true\n---\n\n# Deploy\n\nRun ./go.sh\n\n",
    );
    let loaded = load_skills(&defaults(&d));
    assert!(loaded.skills[0].disable_model_invocation);
    let dir = path.parent().unwrap();
    let block = format!(
        "<skill name=\"deploy\" location=\"{}\">\nReferences are relative to {}.\n\n# Deploy\n\nRun ./go.sh\n</skill>",
        path.display(),
        dir.display()
    );
    assert_eq!(
        expand_skill_command("/skill:deploy", &loaded.skills).unwrap(),
        block
    );
    assert_eq!(
        expand_skill_command("/skill:deploy   to \"prod\"  ", &loaded.skills).unwrap(),
        format!("{block}\n\nto \"prod\"")
    );
    assert_eq!(
        expand_skill_command("/skill:nope x", &loaded.skills).unwrap(),
        "/skill:nope x"
    );
    assert_eq!(
        expand_skill_command("please /skill:deploy", &loaded.skills).unwrap(),
        "please /skill:deploy"
    );
}

#[test]
fn skill_file_gone_before_expansion_is_an_error_and_the_text_is_sent_unchanged() {
    let d = dirs();
    let path = d.home.join("skills").join("gone").join("SKILL.md");
    write(&path, &skill_md(None, Some("Soon gone.")));
    let resources = PromptResources::load(&PromptOptions {
        cwd: d.cwd.clone(),
        rho_home: d.home.clone(),
        project_trusted: true,
        ..PromptOptions::default()
    });
    fs::remove_file(&path).unwrap();
    let (text, error) = resources.expand_input("/skill:gone now");
    assert_eq!(text, "/skill:gone now");
    assert_eq!(error.unwrap().path, path);
}

#[test]
fn no_skills_flag_without_paths_loads_nothing() {
    let d = dirs();
    write(
        &d.home.join("skills").join("one").join("SKILL.md"),
        &skill_md(None, Some("One.")),
    );
    let resources = PromptResources::load(&PromptOptions {
        cwd: d.cwd.clone(),
        rho_home: d.home.clone(),
        no_skills: true,
        project_trusted: true,
        ..PromptOptions::default()
    });
    assert_eq!(resources.skills, vec![]);
}

#[test]
fn frontmatter_values_may_be_quoted_folded_or_literal() {
    use rho_host::prompt::frontmatter::{FrontmatterValue, parse_frontmatter};
    let doc = parse_frontmatter(
        "---\r\na: \"Use it: when \\\"stuck\\\"\"\r\nb: 'it''s'\r\nc: >\r\n  one\r\n  two\r\n\r\n  three\r\nd: |-\r\n  x\r\n    y\r\ne: plain\r\n  continued # comment\r\nf: true\r\nmetadata:\r\n  k: v\r\n---\r\n\r\nBody\r\n",
    )
    .unwrap();
    let fm = &doc.frontmatter;
    assert_eq!(fm.string("a"), Some("Use it: when \"stuck\""));
    assert_eq!(fm.string("b"), Some("it's"));
    assert_eq!(fm.string("c"), Some("one two\nthree\n"));
    assert_eq!(fm.string("d"), Some("x\n  y"));
    assert_eq!(fm.string("e"), Some("plain continued"));
    assert!(fm.is_true("f"));
    assert_eq!(
        fm.get("metadata"),
        Some(&FrontmatterValue::Other("  k: v".into()))
    );
    assert_eq!(doc.body, "Body");
    assert!(parse_frontmatter("---\na: 1\na: 2\n---\n").is_err());
    assert_eq!(
        parse_frontmatter("no frontmatter\r\n").unwrap().body,
        "no frontmatter\n"
    );
}
