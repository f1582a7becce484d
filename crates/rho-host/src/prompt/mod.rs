//! The system prompt and the resources that feed it, as Pi 1.6 builds them (delta §4.4: named
//! sections) with rho's changes (contract §3): context files (`AGENTS.md` / `CLAUDE.md`), custom
//! and appended prompts, skills and prompt templates.
//!
//! [`PromptResources::load`] reads everything the prompt flags select;
//! [`build_system_prompt_sections`] is a pure function of what was loaded, so the prompt can be rebuilt
//! whenever the active tools change.

pub mod context_files;
pub mod diagnostic;
pub mod frontmatter;
mod ignore_rules;
pub mod paths;
pub mod resources;
pub mod skill_prompt;
pub mod skills;
pub mod sources;
pub mod system_prompt;
pub mod template_args;
pub mod templates;

pub use context_files::{ContextFile, load_context_files};
pub use diagnostic::{DiagnosticKind, PromptDiagnostic};
pub use resources::{PromptOptions, PromptResources};
pub use skill_prompt::{
    SkillReadError, SkillReader, expand_skill_command, format_skills_for_prompt,
};
pub use skills::{LoadedSkills, Skill, SkillOptions, load_skills};
pub use system_prompt::{
    SystemPrompt, SystemPromptInput, ToolPrompt, build_system_prompt, build_system_prompt_sections,
};
pub use template_args::{expand_prompt_template, parse_command_args, substitute_args};
pub use templates::{LoadedTemplates, PromptTemplate, TemplateOptions, load_prompt_templates};
