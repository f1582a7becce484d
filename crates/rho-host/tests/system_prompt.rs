#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The system prompt (pi-reference §8.7, contract §3): Pi's structure with rho's name, built
//! from real files in temporary directories.

use std::fs;
use std::path::{Path, PathBuf};

use rho_host::prompt::{
    ContextFile, PromptOptions, PromptResources, SystemPromptInput, ToolPrompt,
    build_system_prompt, build_system_prompt_sections, load_context_files,
};

/// A project tree: `root/home` is RHO_HOME, `root/project/sub` is the cwd.
struct Tree {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    cwd: PathBuf,
}

fn tree() -> Tree {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    // The walk goes up to `/`; a context file above the temp dir would make every expectation
    // here wrong, so say so plainly instead of failing obscurely.
    for ancestor in root.ancestors() {
        for name in ["AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"] {
            assert!(
                !ancestor.join(name).exists(),
                "stray context file {}",
                ancestor.join(name).display()
            );
        }
    }
    let home = root.join("home");
    let project = root.join("project");
    let cwd = project.join("sub");
    fs::create_dir_all(&home).unwrap();
    fs::create_dir_all(&cwd).unwrap();
    Tree {
        _dir: dir,
        home,
        project,
        cwd,
    }
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn options(t: &Tree) -> PromptOptions {
    PromptOptions {
        cwd: t.cwd.clone(),
        rho_home: t.home.clone(),
        project_trusted: true,
        ..PromptOptions::default()
    }
}

const DEFAULT_TOOLS: [&str; 4] = ["read", "bash", "edit", "write"];

#[test]
fn whole_prompt_has_pis_structure_with_rhos_name_and_no_documentation_block() {
    let t = tree();
    write(&t.home.join("AGENTS.md"), "Global rules.");
    write(&t.project.join("AGENTS.md"), "Project rules.\n");
    write(&t.cwd.join("AGENTS.md"), "Sub rules.");
    write(
        &t.home.join("APPEND_SYSTEM.md"),
        "Always answer in English.",
    );
    let skill = t.home.join("skills").join("pdf-tools").join("SKILL.md");
    write(
        &skill,
        "---\nname: pdf-tools\ndescription: Extract text & tables from <PDF> files.\n---\n# PDF\n",
    );

    let resources = PromptResources::load(&options(&t));
    assert_eq!(resources.diagnostics, vec![]);
    let prompt = resources.system_prompt(&DEFAULT_TOOLS).text();

    let expected = format!(
        "You are a coding assistant running inside rho, a coding agent harness. Help users inspect files, run commands, and modify code.

<tools>
- read: Read file contents
- bash: Execute bash commands (ls, grep, find, etc.)
- edit: Make precise file edits with exact text replacement, including multiple disjoint edits in one call
- write: Create or overwrite files

Additional tools may be available.
</tools>

<rules>
- Use bash for file operations like ls, rg, find
- Use read to examine files instead of cat or sed.
- You can inspect PI_* environment variables for current model and session details.
- Use edit for targeted changes. Batch changes to one file in a single call.
- Each edits[].oldText must exactly and uniquely match the original file. Keep matches short and non-overlapping; merge nearby changes without including large unchanged regions.
- Use write only for new files or complete rewrites.
- Be concise in your responses
- Show file paths clearly when working with files
</rules>

<addendum>
Always answer in English.
</addendum>

<project_context>
Project-specific instructions and guidelines:

<project_instructions path=\"{home}/AGENTS.md\">
Global rules.
</project_instructions>

<project_instructions path=\"{project}/AGENTS.md\">
Project rules.

</project_instructions>

<project_instructions path=\"{cwd}/AGENTS.md\">
Sub rules.
</project_instructions>
</project_context>

<skills>
The following skills provide specialized instructions for specific tasks.
Use the read tool to load a skill's file when the task matches its description.
Resolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.

<available_skills>
  <skill>
    <name>pdf-tools</name>
    <description>Extract text &amp; tables from &lt;PDF&gt; files.</description>
    <location>{skill}</location>
  </skill>
</available_skills>
</skills>

<cwd>
{cwd}
</cwd>",
        home = t.home.display(),
        project = t.project.display(),
        cwd = t.cwd.display(),
        skill = skill.display(),
    );
    assert_eq!(prompt, expected);
}

#[test]
fn agents_md_wins_over_claude_md_in_the_same_directory() {
    let t = tree();
    write(&t.cwd.join("CLAUDE.md"), "claude");
    write(&t.cwd.join("AGENTS.md"), "agents");
    write(&t.project.join("CLAUDE.md"), "project claude");
    let (files, warnings) = load_context_files(&t.cwd, &t.home);
    assert_eq!(
        files,
        vec![
            ContextFile {
                path: t.project.join("CLAUDE.md"),
                content: "project claude".into()
            },
            ContextFile {
                path: t.cwd.join("AGENTS.md"),
                content: "agents".into()
            },
        ]
    );
    assert_eq!(warnings, vec![]);
}

#[test]
fn a_directory_named_like_a_context_file_is_skipped_silently_and_the_next_name_is_tried() {
    let t = tree();
    // Pi 1.6 takes the first regular file: a directory named AGENTS.md is passed over.
    fs::create_dir_all(t.cwd.join("AGENTS.md")).unwrap();
    write(&t.cwd.join("CLAUDE.md"), "fallback");
    let (files, warnings) = load_context_files(&t.cwd, &t.home);
    assert_eq!(
        files,
        vec![ContextFile {
            path: t.cwd.join("CLAUDE.md"),
            content: "fallback".into()
        }]
    );
    assert_eq!(warnings, vec![]);
}

#[test]
fn global_context_file_is_not_repeated_when_rho_home_is_an_ancestor() {
    let t = tree();
    write(&t.project.join("AGENTS.md"), "once");
    let (files, _) = load_context_files(&t.cwd, &t.project);
    assert_eq!(
        files,
        vec![ContextFile {
            path: t.project.join("AGENTS.md"),
            content: "once".into()
        }]
    );
}

#[test]
fn no_context_files_leaves_out_the_project_context_section() {
    let t = tree();
    write(&t.cwd.join("AGENTS.md"), "ignored");
    let resources = PromptResources::load(&PromptOptions {
        no_context_files: true,
        ..options(&t)
    });
    assert_eq!(resources.context_files, vec![]);
    let prompt = resources.system_prompt(&DEFAULT_TOOLS);
    let names: Vec<&str> = prompt.sections().iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["preamble", "tools", "rules", "cwd"]);
    assert!(prompt.text().ends_with(&format!(
        "- Show file paths clearly when working with files\n</rules>\n\n<cwd>\n{}\n</cwd>",
        t.cwd.display()
    )));
}

#[test]
fn custom_system_prompt_from_a_file_path_replaces_the_base_but_keeps_context_and_skills() {
    let t = tree();
    let file = t.project.join("my-prompt.md");
    write(&file, "You are a pirate.");
    write(&t.cwd.join("AGENTS.md"), "Rules.");
    let skill = t
        .cwd
        .join(".rho")
        .join("skills")
        .join("s1")
        .join("SKILL.md");
    write(&skill, "---\ndescription: Does s1 things.\n---\nbody");
    let resources = PromptResources::load(&PromptOptions {
        system_prompt: Some(file.to_string_lossy().into_owned()),
        append_system_prompt: vec!["First.".into(), "Second.".into()],
        ..options(&t)
    });
    let prompt = resources.system_prompt(&["read"]).text();
    let expected = format!(
        "You are a pirate.\n\n<addendum>\nFirst.\n\nSecond.\n</addendum>\n\n<project_context>\nProject-specific instructions and guidelines:\n\n<project_instructions path=\"{cwd}/AGENTS.md\">\nRules.\n</project_instructions>\n</project_context>\n\n<skills>\nThe following skills provide specialized instructions for specific tasks.\nUse the read tool to load a skill's file when the task matches its description.\nResolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.\n\n<available_skills>\n  <skill>\n    <name>s1</name>\n    <description>Does s1 things.</description>\n    <location>{skill}</location>\n  </skill>\n</available_skills>\n</skills>\n\n<cwd>\n{cwd}\n</cwd>",
        cwd = t.cwd.display(),
        skill = skill.display()
    );
    assert_eq!(prompt, expected);
    // With `bash` but no `read`, the block says to load skills with bash (Pi 1.6); with
    // neither, there is no skills block.
    let bash_only = resources.system_prompt(&["bash"]).text();
    assert!(
        bash_only
            .contains("Use bash to load a skill's file when the task matches its description."),
        "{bash_only}"
    );
    let neither = resources.system_prompt(&["edit"]).text();
    assert!(!neither.contains("<available_skills>"), "{neither}");
}

#[test]
fn system_prompt_value_that_is_no_path_is_the_prompt_text_itself() {
    let t = tree();
    let resources = PromptResources::load(&PromptOptions {
        system_prompt: Some("Be brief.".into()),
        no_context_files: true,
        ..options(&t)
    });
    assert_eq!(
        resources.system_prompt(&DEFAULT_TOOLS).text(),
        format!("Be brief.\n\n<cwd>\n{}\n</cwd>", t.cwd.display())
    );
}

#[test]
fn project_system_md_beats_the_global_one_and_append_flags_replace_append_system_md() {
    let t = tree();
    write(&t.home.join("SYSTEM.md"), "global system");
    write(&t.cwd.join(".rho").join("SYSTEM.md"), "project system");
    write(&t.home.join("APPEND_SYSTEM.md"), "global append");
    let discovered = PromptResources::load(&options(&t));
    assert_eq!(discovered.custom_prompt.as_deref(), Some("project system"));
    assert_eq!(discovered.append, vec!["global append".to_string()]);

    let flagged = PromptResources::load(&PromptOptions {
        append_system_prompt: vec!["flag".into()],
        ..options(&t)
    });
    assert_eq!(flagged.append, vec!["flag".to_string()]);
}

#[test]
fn empty_custom_prompt_falls_back_to_the_default_base() {
    let input = SystemPromptInput {
        cwd: PathBuf::from("C:\\work\\repo"),
        tools: vec![],
        custom_prompt: Some(String::new()),
        append: vec![],
        context_files: vec![],
        skills: vec![],
    };
    assert_eq!(
        build_system_prompt(&input),
        format!(
            "{}\n\n<tools>\n(none)\n\nAdditional tools may be available.\n</tools>\n\n<rules>\n- Be concise in your responses\n- Show file paths clearly when working with files\n</rules>\n\n<cwd>\nC:/work/repo\n</cwd>",
            rho_host::prompt::system_prompt::DEFAULT_PREAMBLE
        )
    );
}

#[test]
fn bash_with_search_tools_gets_no_file_operations_rule_and_unknown_tools_are_not_listed() {
    let tools = ToolPrompt::for_tools(&["bash", "grep", "mcp_thing", "ls"]);
    let input = SystemPromptInput {
        cwd: PathBuf::from("/w"),
        tools,
        custom_prompt: None,
        append: vec![],
        context_files: vec![],
        skills: vec![],
    };
    let prompt = build_system_prompt_sections(&input);
    let section = |name: &str| {
        prompt
            .sections()
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, text)| text.clone())
            .unwrap()
    };
    assert_eq!(
        section("tools"),
        "<tools>\n- bash: Execute bash commands (ls, grep, find, etc.)\n- grep: Search file contents for patterns (respects .gitignore)\n- ls: List directory contents\n\nAdditional tools may be available.\n</tools>"
    );
    // Pi 1.6 dropped the "Prefer grep/find/ls" rule.
    assert_eq!(
        section("rules"),
        "<rules>\n- You can inspect PI_* environment variables for current model and session details.\n- Be concise in your responses\n- Show file paths clearly when working with files\n</rules>"
    );
}
