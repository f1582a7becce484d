//! The system prompt, assembled as Pi 0.73.1's `buildSystemPrompt` does, with rho's name and
//! without Pi's documentation block.

use std::path::PathBuf;

use super::context_files::ContextFile;
use super::skill_prompt::format_skills_for_prompt;
use super::skills::Skill;

/// What the system prompt says about one active tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolPrompt {
    /// The tool's name.
    pub name: String,
    /// The one-line `- name: snippet` entry; a tool without one is not listed (but still
    /// counts for the bash / exploration guideline and for `read` enabling skills).
    pub snippet: Option<String>,
    /// Lines added to the guidelines, in order.
    pub guidelines: Vec<String>,
}

impl ToolPrompt {
    /// Pi's snippet and guidelines for a built-in tool (`read`, `bash`, `edit`, `write`,
    /// `grep`, `find`, `ls`); `None` for any other name.
    pub fn builtin(name: &str) -> Option<Self> {
        let (snippet, guidelines): (&str, &[&str]) = match name {
            "read" => (
                "Read file contents",
                &["Use read to examine files instead of cat or sed."],
            ),
            "bash" => ("Execute bash commands (ls, grep, find, etc.)", &[]),
            "edit" => (
                "Make precise file edits with exact text replacement, including multiple disjoint edits in one call",
                &[
                    "Use edit for precise changes (edits[].oldText must match exactly)",
                    "When changing multiple separate locations in one file, use one edit call with multiple entries in edits[] instead of multiple edit calls",
                    "Each edits[].oldText is matched against the original file, not after earlier edits are applied. Do not emit overlapping or nested edits. Merge nearby changes into one edit.",
                    "Keep edits[].oldText as small as possible while still being unique in the file. Do not pad with large unchanged regions.",
                ],
            ),
            "write" => (
                "Create or overwrite files",
                &["Use write only for new files or complete rewrites."],
            ),
            "grep" => (
                "Search file contents for patterns (respects .gitignore)",
                &[],
            ),
            "find" => ("Find files by glob pattern (respects .gitignore)", &[]),
            "ls" => ("List directory contents", &[]),
            _ => return None,
        };
        Some(Self {
            name: name.to_string(),
            snippet: Some(snippet.to_string()),
            guidelines: guidelines.iter().map(|g| g.to_string()).collect(),
        })
    }

    /// The prompt entries for active tools in order: built-ins with Pi's texts, any other name
    /// with no snippet and no guidelines.
    pub fn for_tools<S: AsRef<str>>(names: &[S]) -> Vec<Self> {
        names
            .iter()
            .map(|n| {
                let name = n.as_ref();
                Self::builtin(name).unwrap_or_else(|| Self {
                    name: name.to_string(),
                    snippet: None,
                    guidelines: Vec::new(),
                })
            })
            .collect()
    }
}

/// Everything the system prompt is built from, already loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemPromptInput {
    /// The working directory (shown with `\` turned into `/`).
    pub cwd: PathBuf,
    /// The active tools, in active-tool order.
    pub tools: Vec<ToolPrompt>,
    /// A replacement for the default base prompt (`--system-prompt` or a `SYSTEM.md`); an empty
    /// text counts as none, as in Pi.
    pub custom_prompt: Option<String>,
    /// Texts appended after the base (`--append-system-prompt` values or `APPEND_SYSTEM.md`),
    /// joined by blank lines.
    pub append: Vec<String>,
    /// Context files in prompt order (empty with `--no-context-files`).
    pub context_files: Vec<ContextFile>,
    /// Loaded skills (empty with `--no-skills` and no `--skill`).
    pub skills: Vec<Skill>,
    /// Today's local date, `YYYY-MM-DD`.
    pub date: String,
}

/// The first line of rho's default prompt.
pub const DEFAULT_PROMPT_INTRO: &str = "You are an expert coding assistant operating inside rho, a coding agent harness. You help users by reading files, executing commands, editing code, and writing new files.";

/// Builds the system prompt. With a custom prompt, the tool list and guidelines are left out
/// but the append text, context files, skills (if `read` is active), date and cwd still follow
/// it, as in Pi.
pub fn build_system_prompt(input: &SystemPromptInput) -> String {
    let mut prompt = match input.custom_prompt.as_deref().filter(|p| !p.is_empty()) {
        Some(custom) => custom.to_string(),
        None => default_base(&input.tools),
    };
    let append = input.append.join("\n\n");
    if !append.is_empty() {
        prompt.push_str("\n\n");
        prompt.push_str(&append);
    }
    if !input.context_files.is_empty() {
        prompt.push_str("\n\n# Project Context\n\n");
        prompt.push_str("Project-specific instructions and guidelines:\n\n");
        for file in &input.context_files {
            prompt.push_str(&format!(
                "## {}\n\n{}\n\n",
                file.path.display(),
                file.content
            ));
        }
    }
    let has_read = input.tools.iter().any(|t| t.name == "read");
    if has_read && !input.skills.is_empty() {
        prompt.push_str(&format_skills_for_prompt(&input.skills));
    }
    prompt.push_str(&format!("\nCurrent date: {}", input.date));
    let cwd = input.cwd.to_string_lossy().replace('\\', "/");
    prompt.push_str(&format!("\nCurrent working directory: {cwd}"));
    prompt
}

fn default_base(tools: &[ToolPrompt]) -> String {
    let listed: Vec<String> = tools
        .iter()
        .filter_map(|t| {
            t.snippet
                .as_deref()
                .filter(|s| !s.is_empty())
                .map(|s| format!("- {}: {s}", t.name))
        })
        .collect();
    let tools_list = if listed.is_empty() {
        "(none)".to_string()
    } else {
        listed.join("\n")
    };

    let has = |name: &str| tools.iter().any(|t| t.name == name);
    let mut guidelines: Vec<String> = Vec::new();
    let mut add = |g: &str| {
        if !guidelines.iter().any(|existing| existing == g) {
            guidelines.push(g.to_string());
        }
    };
    let explores = has("grep") || has("find") || has("ls");
    if has("bash") && !explores {
        add("Use bash for file operations like ls, rg, find");
    } else if has("bash") {
        add(
            "Prefer grep/find/ls tools over bash for file exploration (faster, respects .gitignore)",
        );
    }
    for guideline in tools.iter().flat_map(|t| &t.guidelines) {
        let trimmed = guideline.trim();
        if !trimmed.is_empty() {
            add(trimmed);
        }
    }
    add("Be concise in your responses");
    add("Show file paths clearly when working with files");
    let guidelines: Vec<String> = guidelines.iter().map(|g| format!("- {g}")).collect();

    format!(
        "{DEFAULT_PROMPT_INTRO}\n\nAvailable tools:\n{tools_list}\n\nIn addition to the tools above, you may have access to other custom tools depending on the project.\n\nGuidelines:\n{}",
        guidelines.join("\n")
    )
}
