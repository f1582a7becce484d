//! The system prompt as Pi 1.6's `buildSystemPromptSections` builds it — named sections
//! (`preamble`, `tools`, `rules`, then `addendum`, `project_context`, `skills`, `cwd`), each but
//! the preamble wrapped in its own tag — with rho's name and without Pi's documentation block.
//! The session sends them to the model as a `system` message and patches them by name.

use std::path::PathBuf;

use super::context_files::ContextFile;
use super::skill_prompt::{SkillReader, format_skills_for_prompt};
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
            "bash" => (
                "Execute bash commands (ls, grep, find, etc.)",
                &[
                    "You can inspect PI_* environment variables for current model and session details.",
                ],
            ),
            "edit" => (
                "Make precise file edits with exact text replacement, including multiple disjoint edits in one call",
                &[
                    "Use edit for targeted changes. Batch changes to one file in a single call.",
                    "Each edits[].oldText must exactly and uniquely match the original file. Keep matches short and non-overlapping; merge nearby changes without including large unchanged regions.",
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
            "tool_search" => (crate::tools::tool_search::SNIPPET, &[]),
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
    /// joined by blank lines into the `addendum` section.
    pub append: Vec<String>,
    /// Context files in prompt order (empty with `--no-context-files`).
    pub context_files: Vec<ContextFile>,
    /// Loaded skills (empty with `--no-skills` and no `--skill`).
    pub skills: Vec<Skill>,
}

/// The first section of rho's default prompt.
pub const DEFAULT_PREAMBLE: &str = "You are a coding assistant running inside rho, a coding agent harness. Help users inspect files, run commands, and modify code.";

/// A system prompt as named sections in prompt order, each already rendered (`<name>\n…\n</name>`
/// for all but `preamble`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SystemPrompt {
    sections: Vec<(String, String)>,
}

impl SystemPrompt {
    /// A prompt that is only `text`, as its preamble (a local model's short prompt).
    pub fn preamble_only(text: impl Into<String>) -> Self {
        Self {
            sections: vec![("preamble".to_owned(), text.into())],
        }
    }

    /// The sections by name, in prompt order.
    pub fn sections(&self) -> &[(String, String)] {
        &self.sections
    }

    /// This prompt with `extra` sections after its own (an MCP server list).
    pub fn with_sections(&self, extra: &[(String, String)]) -> SystemPrompt {
        let mut prompt = self.clone();
        prompt.sections.extend(extra.iter().cloned());
        prompt
    }

    /// The text the model reads: the non-empty sections joined by blank lines (Pi's
    /// `getSystemMessageText`).
    pub fn text(&self) -> String {
        render_sections(self.sections.iter().map(|(_, text)| text.as_str()))
    }

    fn push(&mut self, name: &str, content: &str) {
        let rendered = if name == "preamble" {
            content.to_owned()
        } else {
            format!("<{name}>\n{content}\n</{name}>")
        };
        self.sections.push((name.to_owned(), rendered));
    }
}

/// The prompt text of rendered sections: the non-empty ones joined by blank lines (Pi's
/// `getSystemMessageText`).
pub fn render_sections<'a>(sections: impl Iterator<Item = &'a str>) -> String {
    let parts: Vec<&str> = sections.filter(|text| !text.is_empty()).collect();
    parts.join("\n\n")
}

/// Builds the system prompt's sections. With a custom prompt there are no `tools` and `rules`
/// sections; the addendum, context files, skills (when a tool can read them) and cwd still
/// follow it, as in Pi 1.6.
pub fn build_system_prompt_sections(input: &SystemPromptInput) -> SystemPrompt {
    let mut prompt = SystemPrompt::default();
    match input.custom_prompt.as_deref().filter(|p| !p.is_empty()) {
        Some(custom) => prompt.push("preamble", custom),
        None => {
            prompt.push("preamble", DEFAULT_PREAMBLE);
            prompt.push("tools", &tools_section(&input.tools));
            prompt.push("rules", &rules_section(&input.tools));
        }
    }
    let append = input.append.join("\n\n");
    if !append.is_empty() {
        prompt.push("addendum", &append);
    }
    if !input.context_files.is_empty() {
        let mut parts = vec!["Project-specific instructions and guidelines:".to_owned()];
        parts.extend(input.context_files.iter().map(|file| {
            format!(
                "<project_instructions path=\"{}\">\n{}\n</project_instructions>",
                file.path.display(),
                file.content
            )
        }));
        prompt.push("project_context", &parts.join("\n\n"));
    }
    let has = |name: &str| input.tools.iter().any(|t| t.name == name);
    let reader = if has("read") {
        Some(SkillReader::Read)
    } else if has("bash") {
        Some(SkillReader::Bash)
    } else {
        None
    };
    if let Some(reader) = reader {
        let skills = format_skills_for_prompt(&input.skills, reader);
        let skills = skills.trim();
        if !skills.is_empty() {
            prompt.push("skills", skills);
        }
    }
    prompt.push("cwd", &input.cwd.to_string_lossy().replace('\\', "/"));
    prompt
}

/// The system prompt's text (see [`build_system_prompt_sections`]).
pub fn build_system_prompt(input: &SystemPromptInput) -> String {
    build_system_prompt_sections(input).text()
}

fn tools_section(tools: &[ToolPrompt]) -> String {
    let listed: Vec<String> = tools
        .iter()
        .filter_map(|t| {
            t.snippet
                .as_deref()
                .filter(|s| !s.is_empty())
                .map(|s| format!("- {}: {s}", t.name))
        })
        .collect();
    let list = if listed.is_empty() {
        "(none)".to_owned()
    } else {
        listed.join("\n")
    };
    format!("{list}\n\nAdditional tools may be available.")
}

fn rules_section(tools: &[ToolPrompt]) -> String {
    let has = |name: &str| tools.iter().any(|t| t.name == name);
    let mut rules: Vec<String> = Vec::new();
    let mut add = |rule: &str| {
        let rule = rule.trim();
        if !rule.is_empty() && !rules.iter().any(|existing| existing == rule) {
            rules.push(rule.to_owned());
        }
    };
    if has("bash") && !has("grep") && !has("find") && !has("ls") {
        add("Use bash for file operations like ls, rg, find");
    }
    for rule in tools.iter().flat_map(|t| &t.guidelines) {
        add(rule);
    }
    add("Be concise in your responses");
    add("Show file paths clearly when working with files");
    let lines: Vec<String> = rules.iter().map(|rule| format!("- {rule}")).collect();
    lines.join("\n")
}
