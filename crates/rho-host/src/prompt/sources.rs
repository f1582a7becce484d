//! Where the custom base prompt and the appended text come from: `--system-prompt` /
//! `--append-system-prompt` (each a text or a path to a file), else `SYSTEM.md` /
//! `APPEND_SYSTEM.md` in `<cwd>/.rho`, else in `RHO_HOME`.

use std::path::{Path, PathBuf};

use super::diagnostic::PromptDiagnostic;

/// The working directory and whether its project is trusted (an untrusted project's `.rho/`
/// files are passed over).
pub type ProjectRoot<'a> = (&'a Path, bool);

/// The discovered custom base prompt file: `<cwd>/.rho/SYSTEM.md` (trusted project), else
/// `RHO_HOME/SYSTEM.md`.
pub fn discover_system_prompt_file(project: ProjectRoot<'_>, rho_home: &Path) -> Option<PathBuf> {
    discover(project, rho_home, "SYSTEM.md")
}

/// The discovered append file: `<cwd>/.rho/APPEND_SYSTEM.md` (trusted project), else
/// `RHO_HOME/APPEND_SYSTEM.md`.
pub fn discover_append_system_prompt_file(
    project: ProjectRoot<'_>,
    rho_home: &Path,
) -> Option<PathBuf> {
    discover(project, rho_home, "APPEND_SYSTEM.md")
}

fn discover((cwd, trusted): ProjectRoot<'_>, rho_home: &Path, name: &str) -> Option<PathBuf> {
    let project = trusted.then(|| cwd.join(".rho").join(name));
    project
        .into_iter()
        .chain([rho_home.join(name)])
        .find(|p| p.exists())
}

/// Pi's `resolvePromptInput`: a value naming an existing path (relative paths against `cwd`)
/// is replaced by the file's text; a path that cannot be read stays as literal text with a
/// warning; anything else is the text itself.
pub fn resolve_prompt_input(
    value: &str,
    cwd: &Path,
    what: &str,
    warnings: &mut Vec<PromptDiagnostic>,
) -> String {
    let path = cwd.join(value);
    if value.is_empty() || !path.exists() {
        return value.to_string();
    }
    match std::fs::read(&path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            warnings.push(PromptDiagnostic::warning(
                format!("Could not read {what} file {value}: {e}"),
                &path,
            ));
            value.to_string()
        }
    }
}

/// The custom base prompt: the `--system-prompt` value if given, else a discovered `SYSTEM.md`.
pub fn resolve_custom_prompt(
    flag: Option<&str>,
    project: ProjectRoot<'_>,
    rho_home: &Path,
    warnings: &mut Vec<PromptDiagnostic>,
) -> Option<String> {
    let cwd = project.0;
    match flag {
        Some(value) => Some(resolve_prompt_input(value, cwd, "system prompt", warnings)),
        None => discover_system_prompt_file(project, rho_home)
            .map(|p| resolve_prompt_input(&p.to_string_lossy(), cwd, "system prompt", warnings)),
    }
}

/// The appended texts: the `--append-system-prompt` values if any were given, else a
/// discovered `APPEND_SYSTEM.md`.
pub fn resolve_append_prompts(
    flags: &[String],
    project: ProjectRoot<'_>,
    rho_home: &Path,
    warnings: &mut Vec<PromptDiagnostic>,
) -> Vec<String> {
    let cwd = project.0;
    if !flags.is_empty() {
        return flags
            .iter()
            .map(|v| resolve_prompt_input(v, cwd, "append system prompt", warnings))
            .collect();
    }
    discover_append_system_prompt_file(project, rho_home)
        .map(|p| {
            vec![resolve_prompt_input(
                &p.to_string_lossy(),
                cwd,
                "append system prompt",
                warnings,
            )]
        })
        .unwrap_or_default()
}
