//! Prompt templates: `.md` files whose name becomes a `/name` command, found in
//! `RHO_HOME/prompts`, `<cwd>/.rho/prompts` and `--prompt-template` paths.

use std::path::{Path, PathBuf};

use super::diagnostic::{DiagnosticKind, PromptDiagnostic};
use super::frontmatter::parse_frontmatter;
use super::ignore_rules::{EntryKind, IgnoreRules, sorted_entries};
use super::paths::resolve_user_path;

/// One prompt template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptTemplate {
    /// The file name without `.md`: the command is `/name`.
    pub name: String,
    /// Frontmatter `description`, else the first non-empty body line (cut to 60 characters,
    /// `...` appended when cut).
    pub description: String,
    /// Frontmatter `argument-hint`, if set.
    pub argument_hint: Option<String>,
    /// The body the arguments are substituted into.
    pub content: String,
    /// The template file.
    pub file_path: PathBuf,
}

/// Where to look for templates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateOptions {
    /// The working directory (`<cwd>/.rho/prompts`; relative paths resolve against it).
    pub cwd: PathBuf,
    /// `RHO_HOME` (`RHO_HOME/prompts`).
    pub rho_home: PathBuf,
    /// `--prompt-template` values, in flag order (files or directories).
    pub template_paths: Vec<String>,
    /// Scan the default locations; `false` for `--no-prompt-templates`.
    pub include_defaults: bool,
    /// Scan the project's `.rho/prompts` too (the project is trusted).
    pub include_project: bool,
}

/// The loaded templates (one per name, first found wins) and the problems found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadedTemplates {
    /// The templates in precedence order.
    pub templates: Vec<PromptTemplate>,
    /// Unreadable files, missing paths, name collisions.
    pub diagnostics: Vec<PromptDiagnostic>,
}

/// Loads templates: project dir, then global dir (Pi 0.73.1's order, so the project wins a
/// collision), then the explicit paths. Directories are not searched recursively.
pub fn load_prompt_templates(options: &TemplateOptions) -> LoadedTemplates {
    let mut found = Vec::new();
    let mut diagnostics = Vec::new();
    if options.include_defaults {
        let project = options
            .include_project
            .then(|| options.cwd.join(".rho").join("prompts"));
        for dir in project
            .into_iter()
            .chain([options.rho_home.join("prompts")])
        {
            for path in default_dir_entries(&dir) {
                found.extend(load_template_from_file(&path, &mut diagnostics));
            }
        }
    }
    for raw in &options.template_paths {
        let path = resolve_user_path(raw, &options.cwd);
        let Ok(meta) = std::fs::metadata(&path) else {
            diagnostics.push(PromptDiagnostic::error(
                "Prompt template path does not exist",
                &path,
            ));
            continue;
        };
        if meta.is_dir() {
            for (name, entry, kind) in sorted_entries(&path) {
                if kind == EntryKind::File && name.ends_with(".md") {
                    found.extend(load_template_from_file(&entry, &mut diagnostics));
                }
            }
        } else if meta.is_file() && path.to_string_lossy().ends_with(".md") {
            found.extend(load_template_from_file(&path, &mut diagnostics));
        }
    }
    let mut templates: Vec<PromptTemplate> = Vec::new();
    for template in found {
        if let Some(existing) = templates.iter().find(|t| t.name == template.name) {
            diagnostics.push(PromptDiagnostic {
                kind: DiagnosticKind::Collision,
                message: format!("name \"/{}\" collision", template.name),
                path: template.file_path.clone(),
                winner: Some(existing.file_path.clone()),
            });
        } else {
            templates.push(template);
        }
    }
    LoadedTemplates {
        templates,
        diagnostics,
    }
}

/// The `.md` files directly in a default prompts dir, skipping dot files, `node_modules` and
/// ignored names.
fn default_dir_entries(dir: &Path) -> Vec<PathBuf> {
    let mut rules = IgnoreRules::new(dir);
    rules.add_dir(dir, "");
    sorted_entries(dir)
        .into_iter()
        .filter(|(name, _, kind)| {
            *kind == EntryKind::File
                && !name.starts_with('.')
                && name.ends_with(".md")
                && !rules.ignores(name, false)
        })
        .map(|(_, path, _)| path)
        .collect()
}

/// Loads one template file; `None` (with a warning) when it cannot be read or parsed.
pub fn load_template_from_file(
    path: &Path,
    diagnostics: &mut Vec<PromptDiagnostic>,
) -> Option<PromptTemplate> {
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            diagnostics.push(PromptDiagnostic::warning(e.to_string(), path));
            return None;
        }
    };
    let document = match parse_frontmatter(&text) {
        Ok(document) => document,
        Err(e) => {
            diagnostics.push(PromptDiagnostic::warning(e.to_string(), path));
            return None;
        }
    };
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = file_name
        .strip_suffix(".md")
        .unwrap_or(&file_name)
        .to_string();
    let description = match document.frontmatter.string("description") {
        Some(d) if !d.is_empty() => d.to_string(),
        _ => first_line_description(&document.body),
    };
    let argument_hint = document
        .frontmatter
        .string("argument-hint")
        .filter(|h| !h.is_empty())
        .map(str::to_string);
    Some(PromptTemplate {
        name,
        description,
        argument_hint,
        content: document.body,
        file_path: path.to_path_buf(),
    })
}

fn first_line_description(body: &str) -> String {
    let Some(line) = body.split('\n').find(|l| !l.trim().is_empty()) else {
        return String::new();
    };
    // Pi cuts at 60 UTF-16 units; cutting at 60 characters keeps every character whole.
    let mut description: String = line.chars().take(60).collect();
    if line.chars().count() > 60 {
        description.push_str("...");
    }
    description
}
