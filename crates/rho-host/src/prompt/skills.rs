//! Skills in Pi's format (the Agent Skills standard): a `SKILL.md` with `name` and
//! `description` frontmatter, found under `<cwd>/.rho/skills` and the `.agents/skills` up to the
//! git root (trusted projects), `RHO_HOME/skills`, `~/.agents/skills` and `--skill`
//! paths. Validation problems are warnings; only a missing description keeps a skill out.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::diagnostic::{DiagnosticKind, PromptDiagnostic};
use super::frontmatter::parse_frontmatter;
use super::ignore_rules::{EntryKind, IgnoreRules, sorted_entries};
use super::paths::resolve_user_path;

/// The longest name the standard allows.
pub const MAX_NAME_LENGTH: usize = 64;
/// The longest description the standard allows.
pub const MAX_DESCRIPTION_LENGTH: usize = 1024;

/// One loaded skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Frontmatter `name`, else the parent directory's name.
    pub name: String,
    /// Frontmatter `description`.
    pub description: String,
    /// The skill file.
    pub file_path: PathBuf,
    /// The directory relative paths in the skill resolve against (the file's parent).
    pub base_dir: PathBuf,
    /// `disable-model-invocation: true`: left out of the system prompt, `/skill:name` only.
    pub disable_model_invocation: bool,
}

/// Where to look for skills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillOptions {
    /// The working directory (project skills live in `<cwd>/.rho/skills`; relative `--skill`
    /// paths resolve against it).
    pub cwd: PathBuf,
    /// `RHO_HOME` (global skills live in `RHO_HOME/skills`).
    pub rho_home: PathBuf,
    /// `--skill` values, in flag order (files or directories; `~` expands).
    pub skill_paths: Vec<String>,
    /// Scan the default locations; `false` for `--no-skills` (explicit paths still load).
    pub include_defaults: bool,
    /// Scan the project's `.rho/skills` and the `.agents/skills` of the cwd and its ancestors
    /// up to the git root too (the project is trusted).
    pub include_project: bool,
    /// The user's home directory: `~/.agents/skills` is scanned whether or not the project is
    /// trusted (it is the user's own).
    pub user_home: Option<PathBuf>,
}

/// The result of loading skills: the skills in precedence order and every problem found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadedSkills {
    /// One skill per name; the first found wins.
    pub skills: Vec<Skill>,
    /// Warnings (in discovery order), then name collisions.
    pub diagnostics: Vec<PromptDiagnostic>,
}

/// Loads skills from the project dir, then the global dir (Pi 0.73.1 lists project resources
/// first, so a project skill wins a name collision), then the `--skill` paths.
pub fn load_skills(options: &SkillOptions) -> LoadedSkills {
    let mut acc = Accumulator::default();
    if options.include_defaults {
        let project = options.cwd.join(".rho").join("skills");
        let global = options.rho_home.join("skills");
        let user_agents = options
            .user_home
            .as_ref()
            .map(|home| home.join(".agents").join("skills"));
        if options.include_project {
            let found = load_skills_from_dir(&project, &mut acc.diagnostics);
            acc.add(found);
            for dir in ancestor_agents_skill_dirs(&options.cwd) {
                if Some(&dir) != user_agents.as_ref() {
                    let found = load_agents_skills_from_dir(&dir, &mut acc.diagnostics);
                    acc.add(found);
                }
            }
        }
        let found = load_skills_from_dir(&global, &mut acc.diagnostics);
        acc.add(found);
        if let Some(dir) = &user_agents {
            let found = load_agents_skills_from_dir(dir, &mut acc.diagnostics);
            acc.add(found);
        }
    }
    for raw in &options.skill_paths {
        let path = resolve_user_path(raw, &options.cwd);
        let Ok(meta) = std::fs::metadata(&path) else {
            acc.diagnostics.push(PromptDiagnostic::warning(
                "skill path does not exist",
                &path,
            ));
            continue;
        };
        if meta.is_dir() {
            let found = load_skills_from_dir(&path, &mut acc.diagnostics);
            acc.add(found);
        } else if meta.is_file() && path.to_string_lossy().ends_with(".md") {
            if let Some(skill) = load_skill_from_file(&path, &mut acc.diagnostics) {
                acc.add(vec![skill]);
            }
        } else {
            acc.diagnostics.push(PromptDiagnostic::warning(
                "skill path is not a markdown file",
                &path,
            ));
        }
    }
    let Accumulator {
        skills,
        mut diagnostics,
        collisions,
        ..
    } = acc;
    diagnostics.extend(collisions);
    LoadedSkills {
        skills,
        diagnostics,
    }
}

#[derive(Default)]
struct Accumulator {
    skills: Vec<Skill>,
    real_paths: HashSet<PathBuf>,
    diagnostics: Vec<PromptDiagnostic>,
    collisions: Vec<PromptDiagnostic>,
}

impl Accumulator {
    fn add(&mut self, found: Vec<Skill>) {
        for skill in found {
            let real =
                std::fs::canonicalize(&skill.file_path).unwrap_or_else(|_| skill.file_path.clone());
            // The same file reached twice (a symlink, or a path given twice) is skipped silently.
            if self.real_paths.contains(&real) {
                continue;
            }
            if let Some(existing) = self.skills.iter().find(|s| s.name == skill.name) {
                self.collisions.push(PromptDiagnostic {
                    kind: DiagnosticKind::Collision,
                    message: format!("name \"{}\" collision", skill.name),
                    path: skill.file_path.clone(),
                    winner: Some(existing.file_path.clone()),
                });
            } else {
                self.real_paths.insert(real);
                self.skills.push(skill);
            }
        }
    }
}

/// Scans one skills directory: direct `.md` files in it are skills; below it, a directory with
/// a `SKILL.md` is a skill (and is not searched further); dot entries, `node_modules` and
/// ignored paths are skipped.
pub fn load_skills_from_dir(dir: &Path, diagnostics: &mut Vec<PromptDiagnostic>) -> Vec<Skill> {
    let mut skills = Vec::new();
    if dir.exists() {
        let mut rules = IgnoreRules::new(dir);
        scan_dir(
            dir,
            dir,
            (true, false),
            &mut rules,
            &mut skills,
            diagnostics,
        );
    }
    skills
}

/// Skills of an `.agents/skills` directory (Pi's "agents" layout): as [`load_skills_from_dir`],
/// except that loose `.md` files count below the root, not at it.
pub fn load_agents_skills_from_dir(
    dir: &Path,
    diagnostics: &mut Vec<PromptDiagnostic>,
) -> Vec<Skill> {
    let mut skills = Vec::new();
    if dir.exists() {
        let mut rules = IgnoreRules::new(dir);
        scan_dir(
            dir,
            dir,
            (false, true),
            &mut rules,
            &mut skills,
            diagnostics,
        );
    }
    skills
}

/// Pi's `collectAncestorAgentsSkillDirs`: `<dir>/.agents/skills` from `cwd` up to the git root
/// (the nearest directory with a `.git`), or up to the filesystem root outside a repository.
fn ancestor_agents_skill_dirs(cwd: &Path) -> Vec<PathBuf> {
    let cwd = std::path::absolute(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let git_root = cwd.ancestors().find(|dir| dir.join(".git").exists());
    let mut dirs = Vec::new();
    for dir in cwd.ancestors() {
        dirs.push(dir.join(".agents").join("skills"));
        if Some(dir) == git_root {
            break;
        }
    }
    dirs
}

/// `(at_root, below_root)`: whether loose `.md` files are skills at the scanned root and below.
type LooseFiles = (bool, bool);

fn scan_dir(
    dir: &Path,
    root: &Path,
    loose: LooseFiles,
    rules: &mut IgnoreRules,
    skills: &mut Vec<Skill>,
    diagnostics: &mut Vec<PromptDiagnostic>,
) {
    let rel = |p: &Path| relative_posix(p, root);
    rules.add_dir(dir, &rel(dir));
    let entries = sorted_entries(dir);
    for (name, path, kind) in &entries {
        if name == "SKILL.md" && *kind == EntryKind::File && !rules.ignores(&rel(path), false) {
            if let Some(skill) = load_skill_from_file(path, diagnostics) {
                skills.push(skill);
            }
            return;
        }
    }
    for (name, path, kind) in &entries {
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        let is_dir = *kind == EntryKind::Dir;
        if rules.ignores(&rel(path), is_dir) {
            continue;
        }
        if is_dir {
            // Each subtree gets its own copy, so a subdirectory's rules do not leak to siblings.
            let mut sub_rules = rules.clone();
            scan_dir(path, root, loose, &mut sub_rules, skills, diagnostics);
        } else if *kind == EntryKind::File
            && (if dir == root { loose.0 } else { loose.1 })
            && name.ends_with(".md")
            && let Some(skill) = load_skill_from_file(path, diagnostics)
        {
            skills.push(skill);
        }
    }
}

fn relative_posix(path: &Path, root: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Loads one skill file, adding its validation warnings to `diagnostics`. `None` when the file
/// cannot be read or parsed, or has no description.
pub fn load_skill_from_file(path: &Path, diagnostics: &mut Vec<PromptDiagnostic>) -> Option<Skill> {
    let warn = |diagnostics: &mut Vec<PromptDiagnostic>, message: String| {
        diagnostics.push(PromptDiagnostic::warning(message, path));
    };
    let text = match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            warn(diagnostics, e.to_string());
            return None;
        }
    };
    let document = match parse_frontmatter(&text) {
        Ok(document) => document,
        Err(e) => {
            warn(diagnostics, e.to_string());
            return None;
        }
    };
    let base_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let parent_name = base_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let description = document
        .frontmatter
        .string("description")
        .map(str::to_string);
    for message in validate_description(description.as_deref()) {
        warn(diagnostics, message);
    }
    let name = match document.frontmatter.string("name") {
        Some(name) if !name.is_empty() => name.to_string(),
        _ => parent_name.clone(),
    };
    for message in validate_name(&name, &parent_name) {
        warn(diagnostics, message);
    }
    let description = description.filter(|d| !d.trim().is_empty())?;
    Some(Skill {
        name,
        description,
        file_path: path.to_path_buf(),
        base_dir,
        disable_model_invocation: document.frontmatter.is_true("disable-model-invocation"),
    })
}

/// The standard's name rules, with Pi's messages.
pub fn validate_name(name: &str, parent_dir_name: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if name != parent_dir_name {
        errors.push(format!(
            "name \"{name}\" does not match parent directory \"{parent_dir_name}\""
        ));
    }
    // Pi counts UTF-16 code units; a valid name is ASCII, where the counts agree.
    let length = name.encode_utf16().count();
    if length > MAX_NAME_LENGTH {
        errors.push(format!(
            "name exceeds {MAX_NAME_LENGTH} characters ({length})"
        ));
    }
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        errors.push(
            "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"
                .to_string(),
        );
    }
    if name.starts_with('-') || name.ends_with('-') {
        errors.push("name must not start or end with a hyphen".to_string());
    }
    if name.contains("--") {
        errors.push("name must not contain consecutive hyphens".to_string());
    }
    errors
}

/// The standard's description rules, with Pi's messages.
pub fn validate_description(description: Option<&str>) -> Vec<String> {
    match description {
        None => vec!["description is required".to_string()],
        Some(d) if d.trim().is_empty() => vec!["description is required".to_string()],
        Some(d) => {
            let length = d.encode_utf16().count();
            if length > MAX_DESCRIPTION_LENGTH {
                vec![format!(
                    "description exceeds {MAX_DESCRIPTION_LENGTH} characters ({length})"
                )]
            } else {
                Vec::new()
            }
        }
    }
}
