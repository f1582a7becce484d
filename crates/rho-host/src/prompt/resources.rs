//! Everything the prompt flags select, loaded in one call: the entry point for the CLI.

use std::path::PathBuf;

use super::context_files::{ContextFile, load_context_files};
use super::diagnostic::PromptDiagnostic;
use super::skill_prompt::{SkillReadError, expand_skill_command};
use super::skills::{Skill, SkillOptions, load_skills};
use super::sources::{resolve_append_prompts, resolve_custom_prompt};
use super::system_prompt::{
    SystemPrompt, SystemPromptInput, ToolPrompt, build_system_prompt_sections,
};
use super::template_args::expand_prompt_template;
use super::templates::{PromptTemplate, TemplateOptions, load_prompt_templates};

/// The prompt-related flags and directories of one invocation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptOptions {
    /// The working directory.
    pub cwd: PathBuf,
    /// `RHO_HOME`.
    pub rho_home: PathBuf,
    /// `--system-prompt <text|file>`.
    pub system_prompt: Option<String>,
    /// `--append-system-prompt <text|file>`, repeatable, in order.
    pub append_system_prompt: Vec<String>,
    /// `-nc, --no-context-files`.
    pub no_context_files: bool,
    /// `--skill <path>`, repeatable.
    pub skill_paths: Vec<String>,
    /// `-ns, --no-skills`.
    pub no_skills: bool,
    /// `--prompt-template <path>`, repeatable.
    pub prompt_template_paths: Vec<String>,
    /// `-np, --no-prompt-templates`.
    pub no_prompt_templates: bool,
    /// Whether the project is trusted: an untrusted project's `.rho/SYSTEM.md`,
    /// `.rho/APPEND_SYSTEM.md`, skills and prompts are not loaded (context files still are).
    pub project_trusted: bool,
    /// The user's home directory (for `~/.agents/skills`).
    pub user_home: Option<PathBuf>,
}

/// The loaded prompt resources.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptResources {
    /// The working directory they were loaded for.
    pub cwd: PathBuf,
    /// The custom base prompt, if any.
    pub custom_prompt: Option<String>,
    /// The appended texts.
    pub append: Vec<String>,
    /// Context files in prompt order.
    pub context_files: Vec<ContextFile>,
    /// Skills in precedence order.
    pub skills: Vec<Skill>,
    /// Prompt templates in precedence order.
    pub templates: Vec<PromptTemplate>,
    /// Every problem met while loading (never fatal).
    pub diagnostics: Vec<PromptDiagnostic>,
}

impl PromptResources {
    /// Loads everything `options` selects. Never fails: unreadable or invalid files are
    /// skipped and listed in `diagnostics`.
    pub fn load(options: &PromptOptions) -> Self {
        let (cwd, home) = (&options.cwd, &options.rho_home);
        let mut diagnostics = Vec::new();
        let project = options.project_trusted;
        let custom_prompt = resolve_custom_prompt(
            options.system_prompt.as_deref(),
            (cwd, project),
            home,
            &mut diagnostics,
        );
        let append = resolve_append_prompts(
            &options.append_system_prompt,
            (cwd, project),
            home,
            &mut diagnostics,
        );
        let context_files = if options.no_context_files {
            Vec::new()
        } else {
            let (files, warnings) = load_context_files(cwd, home);
            diagnostics.extend(warnings);
            files
        };
        let skills = if options.no_skills && options.skill_paths.is_empty() {
            Vec::new()
        } else {
            let loaded = load_skills(&SkillOptions {
                cwd: cwd.clone(),
                rho_home: home.clone(),
                skill_paths: options.skill_paths.clone(),
                include_defaults: !options.no_skills,
                include_project: project,
                user_home: options.user_home.clone(),
            });
            diagnostics.extend(loaded.diagnostics);
            loaded.skills
        };
        let templates = if options.no_prompt_templates && options.prompt_template_paths.is_empty() {
            Vec::new()
        } else {
            let loaded = load_prompt_templates(&TemplateOptions {
                cwd: cwd.clone(),
                rho_home: home.clone(),
                template_paths: options.prompt_template_paths.clone(),
                include_defaults: !options.no_prompt_templates,
                include_project: project,
            });
            diagnostics.extend(loaded.diagnostics);
            loaded.templates
        };
        Self {
            cwd: cwd.clone(),
            custom_prompt,
            append,
            context_files,
            skills,
            templates,
            diagnostics,
        }
    }

    /// The system prompt for these resources and the active tools (in order).
    pub fn system_prompt<S: AsRef<str>>(&self, tool_names: &[S]) -> SystemPrompt {
        build_system_prompt_sections(&SystemPromptInput {
            cwd: self.cwd.clone(),
            tools: ToolPrompt::for_tools(tool_names),
            custom_prompt: self.custom_prompt.clone(),
            append: self.append.clone(),
            context_files: self.context_files.clone(),
            skills: self.skills.clone(),
        })
    }

    /// Expands a user prompt as Pi does before sending it: `/skill:name args` first, then
    /// `/template args`. On a skill read error the text goes on unexpanded (as in Pi) and the
    /// error is returned beside it for the caller to report.
    pub fn expand_input(&self, text: &str) -> (String, Option<SkillReadError>) {
        let (text, error) = match expand_skill_command(text, &self.skills) {
            Ok(expanded) => (expanded, None),
            Err(e) => (text.to_string(), Some(e)),
        };
        (expand_prompt_template(&text, &self.templates), error)
    }
}
