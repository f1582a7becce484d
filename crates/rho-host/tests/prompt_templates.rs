#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Prompt templates (Pi's prompt-templates.md): loading, argument splitting and placeholder
//! substitution, `/name args` expansion.

use std::fs;
use std::path::{Path, PathBuf};

use rho_host::prompt::{
    DiagnosticKind, PromptDiagnostic, PromptOptions, PromptResources, PromptTemplate,
    TemplateOptions, expand_prompt_template, load_prompt_templates, parse_command_args,
    substitute_args,
};

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn template(name: &str, content: &str) -> PromptTemplate {
    PromptTemplate {
        name: name.into(),
        description: String::new(),
        argument_hint: None,
        content: content.into(),
        file_path: PathBuf::from(format!("/t/{name}.md")),
    }
}

#[test]
fn arguments_split_on_blanks_and_quotes_group_without_escapes() {
    assert_eq!(
        parse_command_args("Button \"onClick handler\" 'disabled support'"),
        args(&["Button", "onClick handler", "disabled support"])
    );
    assert_eq!(parse_command_args("  a\t b  "), args(&["a", "b"]));
    assert_eq!(parse_command_args("x\"y z\"w"), args(&["xy zw"]));
    assert_eq!(
        parse_command_args("\"it's\" 'say \"hi\"'"),
        args(&["it's", "say \"hi\""])
    );
    assert_eq!(parse_command_args("a \"\" b"), args(&["a", "b"]));
    assert_eq!(
        parse_command_args("\"unclosed rest"),
        args(&["unclosed rest"])
    );
    assert_eq!(parse_command_args(""), Vec::<String>::new());
}

#[test]
fn placeholders_are_replaced_in_pis_order() {
    let a = args(&["one", "two", "three"]);
    assert_eq!(substitute_args("$1-$2-$3-$4.", &a), "one-two-three-.");
    assert_eq!(
        substitute_args("all: $@ | $ARGUMENTS", &a),
        "all: one two three | one two three"
    );
    assert_eq!(substitute_args("${@:2}", &a), "two three");
    assert_eq!(
        substitute_args("${@:2:1}|${@:0}|${@:9}|${@:1:0}", &a),
        "two|one two three||"
    );
    assert_eq!(substitute_args("$0 $10", &a), " ");
    // Values are not substituted again by the positional pass.
    assert_eq!(
        substitute_args("$1 and $2", &args(&["$2", "x"])),
        "$2 and x"
    );
    assert_eq!(substitute_args("no placeholders", &[]), "no placeholders");
}

#[test]
fn slash_name_expands_only_a_known_template() {
    let templates = vec![
        template("component", "Create $1 with: $@"),
        template("review", "Review it."),
    ];
    assert_eq!(
        expand_prompt_template("/component Button \"click handler\"", &templates),
        "Create Button with: Button click handler"
    );
    assert_eq!(expand_prompt_template("/review", &templates), "Review it.");
    assert_eq!(
        expand_prompt_template("/unknown a b", &templates),
        "/unknown a b"
    );
    assert_eq!(expand_prompt_template("review", &templates), "review");
    // The name ends at the first space only; a tab is part of it.
    assert_eq!(
        expand_prompt_template("/review\tx", &templates),
        "/review\tx"
    );
}

#[test]
fn templates_load_with_descriptions_hints_and_project_precedence() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let cwd = dir.path().join("cwd");
    let global_review = home.join("prompts").join("review.md");
    write(&global_review, "Global review");
    let project_review = cwd.join(".rho").join("prompts").join("review.md");
    write(
        &project_review,
        "---\ndescription: Review staged changes\nargument-hint: \"<focus>\"\n---\nReview $1\n",
    );
    let long_line = "L".repeat(61);
    let pr = home.join("prompts").join("pr.md");
    write(&pr, &format!("\n\n{long_line}\nmore"));
    write(
        &home.join("prompts").join("nested").join("deep.md"),
        "not loaded",
    );
    write(&home.join("prompts").join(".secret.md"), "not loaded");
    write(&home.join("prompts").join("notes.txt"), "not loaded");

    let loaded = load_prompt_templates(&TemplateOptions {
        cwd: cwd.clone(),
        rho_home: home.clone(),
        template_paths: vec![],
        include_defaults: true,
        include_project: true,
    });
    assert_eq!(
        loaded.templates,
        vec![
            PromptTemplate {
                name: "review".into(),
                description: "Review staged changes".into(),
                argument_hint: Some("<focus>".into()),
                content: "Review $1".into(),
                file_path: project_review.clone(),
            },
            PromptTemplate {
                name: "pr".into(),
                description: format!("{}...", "L".repeat(60)),
                argument_hint: None,
                content: format!("\n\n{long_line}\nmore"),
                file_path: pr,
            },
        ]
    );
    assert_eq!(
        loaded.diagnostics,
        vec![PromptDiagnostic {
            kind: DiagnosticKind::Collision,
            message: "name \"/review\" collision".into(),
            path: global_review,
            winner: Some(project_review),
        }]
    );
}

#[test]
fn explicit_template_paths_load_even_with_no_prompt_templates() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().to_path_buf();
    write(
        &cwd.join("home").join("prompts").join("default.md"),
        "default",
    );
    write(&cwd.join("mine").join("fix.md"), "Fix $ARGUMENTS");
    write(&cwd.join("more").join("a.md"), "A");
    write(&cwd.join("more").join("b.md"), "B");
    let resources = PromptResources::load(&PromptOptions {
        cwd: cwd.clone(),
        rho_home: cwd.join("home"),
        prompt_template_paths: vec![
            "mine/fix.md".into(),
            cwd.join("more").to_string_lossy().into_owned(),
            "gone.md".into(),
        ],
        no_prompt_templates: true,
        no_context_files: true,
        project_trusted: true,
        ..PromptOptions::default()
    });
    let names: Vec<&str> = resources
        .templates
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, vec!["fix", "a", "b"]);
    assert_eq!(
        resources.diagnostics,
        vec![PromptDiagnostic {
            kind: DiagnosticKind::Error,
            message: "Prompt template path does not exist".into(),
            path: cwd.join("gone.md"),
            winner: None,
        }]
    );
    let (text, error) = resources.expand_input("/fix the 'flaky test'");
    assert_eq!(text, "Fix the flaky test");
    assert!(error.is_none());
}

#[test]
fn skill_command_expands_before_templates_are_considered() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().to_path_buf();
    let skill = cwd.join(".rho").join("skills").join("go").join("SKILL.md");
    write(&skill, "---\ndescription: Go.\n---\nSteps.");
    // A template literally named `skill:go` never sees the text: the skill expands first.
    write(
        &cwd.join(".rho").join("prompts").join("skill:go.md"),
        "template",
    );
    let resources = PromptResources::load(&PromptOptions {
        cwd: cwd.clone(),
        rho_home: cwd.join("home"),
        no_context_files: true,
        project_trusted: true,
        ..PromptOptions::default()
    });
    let (text, error) = resources.expand_input("/skill:go fast");
    assert!(error.is_none());
    assert_eq!(
        text,
        format!(
            "<skill name=\"go\" location=\"{}\">\nReferences are relative to {}.\n\nSteps.\n</skill>\n\nfast",
            skill.display(),
            skill.parent().unwrap().display()
        )
    );
}
