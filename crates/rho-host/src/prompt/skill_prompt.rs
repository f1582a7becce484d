//! How skills reach the model: the `<available_skills>` block of the system prompt, and the
//! `/skill:name args` command that puts a whole skill into a prompt.

use std::path::PathBuf;

use super::frontmatter::strip_frontmatter;
use super::skills::Skill;

/// The tool the model loads a skill's file with, as the skills block names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkillReader {
    /// The `read` tool.
    Read,
    /// The `bash` tool (no `read`).
    Bash,
}

/// The skills block of the system prompt (Pi 1.6's `formatSkillsForPrompt`), starting with its
/// two separating newlines; empty when no skill may be invoked by the model.
pub fn format_skills_for_prompt(skills: &[Skill], reader: SkillReader) -> String {
    let visible: Vec<&Skill> = skills
        .iter()
        .filter(|s| !s.disable_model_invocation)
        .collect();
    if visible.is_empty() {
        return String::new();
    }
    let mut lines = vec![
        "\n\nThe following skills provide specialized instructions for specific tasks.".to_string(),
        match reader {
            SkillReader::Read => "Use the read tool to load a skill's file when the task matches its description.",
            SkillReader::Bash => "Use bash to load a skill's file when the task matches its description.",
        }
        .to_string(),
        "Resolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.".to_string(),
        String::new(),
        "<available_skills>".to_string(),
    ];
    for skill in visible {
        lines.push("  <skill>".to_string());
        lines.push(format!("    <name>{}</name>", escape_xml(&skill.name)));
        lines.push(format!(
            "    <description>{}</description>",
            escape_xml(&skill.description)
        ));
        lines.push(format!(
            "    <location>{}</location>",
            escape_xml(&skill.file_path.to_string_lossy())
        ));
        lines.push("  </skill>".to_string());
    }
    lines.push("</available_skills>".to_string());
    lines.join("\n")
}

/// Escapes the five XML special characters.
pub fn escape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// A `/skill:` command whose skill file could not be read any more.
#[derive(Debug, thiserror::Error)]
#[error("could not read skill file {}: {source}", path.display())]
pub struct SkillReadError {
    /// The skill file.
    pub path: PathBuf,
    /// Why reading or parsing it failed.
    #[source]
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

/// Expands `/skill:name args` (Pi's `_expandSkillCommand`): the skill's body (frontmatter
/// removed, trimmed) wrapped in a `<skill>` element, then the arguments after a blank line.
/// Text that is no skill command, or names no loaded skill, comes back unchanged. On a read
/// error the caller should send the text unchanged, as Pi does, and report the error.
pub fn expand_skill_command(text: &str, skills: &[Skill]) -> Result<String, SkillReadError> {
    let Some(rest) = text.strip_prefix("/skill:") else {
        return Ok(text.to_string());
    };
    let (name, args) = match rest.find(' ') {
        Some(space) => (&rest[..space], rest[space + 1..].trim()),
        None => (rest, ""),
    };
    let Some(skill) = skills.iter().find(|s| s.name == name) else {
        return Ok(text.to_string());
    };
    let read_error = |source: Box<dyn std::error::Error + Send + Sync>| SkillReadError {
        path: skill.file_path.clone(),
        source,
    };
    let bytes = std::fs::read(&skill.file_path).map_err(|e| read_error(Box::new(e)))?;
    let content = String::from_utf8_lossy(&bytes);
    let body = strip_frontmatter(&content).map_err(|e| read_error(Box::new(e)))?;
    let block = format!(
        "<skill name=\"{}\" location=\"{}\">\nReferences are relative to {}.\n\n{}\n</skill>",
        skill.name,
        skill.file_path.display(),
        skill.base_dir.display(),
        body.trim()
    );
    Ok(if args.is_empty() {
        block
    } else {
        format!("{block}\n\n{args}")
    })
}
