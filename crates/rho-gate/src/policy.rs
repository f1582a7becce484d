//! The gate's policy: the mode, the allowed roots, the secrets, the command rules, the network.

use std::path::{Path, PathBuf};

use crate::command::{CommandDecision, CommandRules};
use crate::mode::PermissionMode;
use crate::protected::ProtectedPaths;
use crate::realpath::real_path;
use crate::refusal::Refusal;
use crate::secrets::SecretRules;
use crate::tool_env::ToolEnvironment;

/// rho's credential files in `RHO_HOME`: never read or written by a tool, in any mode.
pub const CREDENTIAL_FILES: [&str; 3] = ["auth.json", "models.json", "mcp-auth.json"];

/// Paths longer than this are refused before the file system is asked (Linux's `PATH_MAX`).
const MAX_PATH_BYTES: usize = 4096;

/// What a tool does with a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// `read`, `ls`, `grep`, `find`.
    Read,
    /// `write`, `edit`.
    Write,
}

/// Everything the gate decides by.
#[derive(Clone, Debug)]
pub struct GatePolicy {
    mode: PermissionMode,
    cwd: PathBuf,
    /// The roots as given (cwd first), for messages.
    shown_roots: Vec<PathBuf>,
    /// The roots with symlinks resolved, for checks.
    roots: Vec<PathBuf>,
    secrets: SecretRules,
    rules: CommandRules,
    network: bool,
    /// `RHO_HOME`, symlinks resolved: protected, and its credential files unreachable.
    rho_home: Option<PathBuf>,
    /// What of rho's environment reaches the processes tools start.
    tool_environment: std::sync::Arc<ToolEnvironment>,
}

impl GatePolicy {
    /// A policy for a session in `cwd`: roots = `cwd`, default secrets, no command rules,
    /// network on.
    pub fn new(mode: PermissionMode, cwd: impl Into<PathBuf>) -> Self {
        let cwd = cwd.into();
        let mut policy = GatePolicy {
            mode,
            cwd: cwd.clone(),
            shown_roots: Vec::new(),
            roots: Vec::new(),
            secrets: SecretRules::default(),
            rules: CommandRules::default(),
            network: true,
            rho_home: None,
            tool_environment: std::sync::Arc::default(),
        };
        policy.add_root(cwd);
        policy
    }

    /// Adds `--allow-dir` roots; relative ones are taken relative to the cwd.
    pub fn with_allow_dirs<I, P>(mut self, dirs: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        for dir in dirs {
            let dir = self.cwd.join(dir.as_ref());
            self.add_root(dir);
        }
        self
    }

    /// Replaces the secrets deny list.
    pub fn with_secrets(mut self, secrets: SecretRules) -> Self {
        self.secrets = secrets;
        self
    }

    /// Replaces the command rules.
    pub fn with_rules(mut self, rules: CommandRules) -> Self {
        self.rules = rules;
        self
    }

    /// `false` is `--no-network`.
    pub fn with_network(mut self, network: bool) -> Self {
        self.network = network;
        self
    }

    /// `RHO_HOME`: read-only to every tool in `workspace-write` (also when it lies inside a
    /// root), and its credential files out of every tool's reach.
    pub fn with_rho_home(mut self, home: impl AsRef<Path>) -> Self {
        let home = home.as_ref();
        self.rho_home = Some(real_path(home).unwrap_or_else(|_| home.to_path_buf()));
        self
    }

    /// Replaces the environment rule of the processes tools start (default: keys dropped).
    pub fn with_tool_environment(mut self, rule: ToolEnvironment) -> Self {
        self.tool_environment = std::sync::Arc::new(rule);
        self
    }

    /// The environment rule of the processes tools start.
    pub fn tool_environment(&self) -> &std::sync::Arc<ToolEnvironment> {
        &self.tool_environment
    }

    /// `RHO_HOME`, symlinks resolved, if known.
    pub fn rho_home(&self) -> Option<&Path> {
        self.rho_home.as_deref()
    }

    /// rho's credential files, wherever they are (existing or not).
    pub fn credential_files(&self) -> Vec<PathBuf> {
        self.rho_home
            .iter()
            .flat_map(|home| CREDENTIAL_FILES.iter().map(move |name| home.join(name)))
            .collect()
    }

    /// The protected paths as they are now (see [`ProtectedPaths`]).
    pub fn protected_paths(&self) -> ProtectedPaths {
        ProtectedPaths::enumerate(&self.roots, self.rho_home.as_deref())
    }

    fn add_root(&mut self, root: PathBuf) {
        let real = real_path(&root).unwrap_or_else(|_| root.clone());
        if !self.roots.contains(&real) {
            self.roots.push(real);
            self.shown_roots.push(root);
        }
    }

    /// The permission mode.
    pub fn mode(&self) -> PermissionMode {
        self.mode
    }

    /// The session's working directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The allowed roots with symlinks resolved (cwd first).
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Whether the network is allowed.
    pub fn network(&self) -> bool {
        self.network
    }

    /// The command rules.
    pub fn rules(&self) -> &CommandRules {
        &self.rules
    }

    /// The secrets deny list.
    pub fn secrets(&self) -> &SecretRules {
        &self.secrets
    }

    /// Checks one path argument of `tool`, already resolved against the cwd the way the tool
    /// resolves it (`@`, `~`, relative, lexical `..`). Returns the real path (symlinks
    /// followed) on success.
    pub fn check_path(
        &self,
        tool: &str,
        access: Access,
        resolved: &Path,
    ) -> Result<PathBuf, Refusal> {
        if access == Access::Write && self.mode == PermissionMode::ReadOnly {
            return Err(Refusal::ReadOnly {
                tool: tool.to_owned(),
            });
        }
        let bytes = resolved.as_os_str().as_encoded_bytes();
        if bytes.contains(&0) {
            return Err(bad_path(resolved, "it contains a NUL byte"));
        }
        if bytes.len() > MAX_PATH_BYTES {
            return Err(bad_path(resolved, "it is longer than 4096 bytes"));
        }
        let real = real_path(resolved).map_err(|error| bad_path(resolved, &io_problem(&error)))?;
        for candidate in [resolved, real.as_path()] {
            self.check_secret(candidate, &real)?;
        }
        self.check_roots(access, &real)?;
        self.check_protected(access, &real)?;
        Ok(real)
    }

    /// Refuses a secret: a deny glob's match, or one of rho's credential files.
    pub(crate) fn check_secret(&self, candidate: &Path, real: &Path) -> Result<(), Refusal> {
        if let Some(glob) = self.secrets.denied_by(candidate) {
            return Err(Refusal::Secret {
                path: real.display().to_string(),
                glob: glob.to_owned(),
            });
        }
        if let Some(home) = &self.rho_home
            && candidate.parent() == Some(home.as_path())
            && let Some(name) = candidate.file_name().and_then(|n| n.to_str())
            && CREDENTIAL_FILES.contains(&name)
        {
            return Err(Refusal::Secret {
                path: real.display().to_string(),
                glob: format!("RHO_HOME/{name}"),
            });
        }
        Ok(())
    }

    /// Refuses a write to a protected path in `workspace-write` mode.
    pub(crate) fn check_protected(&self, access: Access, real: &Path) -> Result<(), Refusal> {
        if access == Access::Write
            && self.mode == PermissionMode::WorkspaceWrite
            && self.protected_paths().covers(real)
        {
            return Err(Refusal::Protected {
                path: real.display().to_string(),
            });
        }
        Ok(())
    }

    /// The roots part of [`GatePolicy::check_path`] alone, on a real path.
    pub(crate) fn check_roots(&self, access: Access, real: &Path) -> Result<(), Refusal> {
        if self.mode == PermissionMode::Full || self.is_inside_roots(real) {
            return Ok(());
        }
        if access == Access::Read && crate::outputs::is_output_file(real) {
            return Ok(());
        }
        Err(Refusal::OutsideRoots {
            path: real.display().to_string(),
            roots: self
                .shown_roots
                .iter()
                .map(|root| root.display().to_string())
                .collect(),
        })
    }

    /// Whether a real path lies inside one of the roots (component-wise).
    pub fn is_inside_roots(&self, real: &Path) -> bool {
        self.roots.iter().any(|root| real.starts_with(root))
    }

    /// The rules' decision on a bash command.
    pub fn check_command(&self, command: &str) -> CommandDecision {
        self.rules.decide(command)
    }
}

/// The argument as shown in a refusal: control characters escaped, at most 300 characters.
fn bad_path(path: &Path, problem: &str) -> Refusal {
    let text: String = path
        .to_string_lossy()
        .chars()
        .flat_map(char::escape_debug)
        .take(300)
        .collect();
    Refusal::BadPath {
        path: text,
        problem: problem.to_owned(),
    }
}

/// A file-system error as a short reason.
fn io_problem(error: &std::io::Error) -> String {
    match error.raw_os_error() {
        Some(libc::ELOOP) => "it runs through too many symbolic links (a loop?)".to_owned(),
        Some(libc::ENAMETOOLONG) => "a name in it is too long".to_owned(),
        _ => format!("it cannot be resolved ({error})"),
    }
}
