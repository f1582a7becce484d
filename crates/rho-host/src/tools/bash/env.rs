//! The environment of a shell (Pi 1.6's `resolveSpawnContext`): the names that describe the
//! session are removed from the inherited environment, then set from the call's context, so a
//! command never sees a stale copy (from rho's own environment, or an earlier model).

use rho_agent::ToolContext;

/// The names that describe the session, set only for the model's calls.
const SESSION_NAMES: [&str; 5] = [
    "PI_SESSION_ID",
    "PI_SESSION_FILE",
    "PI_PROVIDER",
    "PI_MODEL",
    "PI_REASONING_LEVEL",
];

/// Changes to the inherited environment for one shell.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShellEnv {
    /// Variables set (after the removals).
    set: Vec<(&'static str, String)>,
}

impl ShellEnv {
    /// A shell outside any session: the session names removed, only the agent markers set
    /// (Pi 1.6 sets `PI_CODING_AGENT=true` and `AI_AGENT` for its whole process; a script that
    /// asks whether it runs under Pi's coding agent gets the same answer from rho).
    pub fn plain() -> Self {
        ShellEnv {
            set: vec![
                ("AI_AGENT", "rho".to_owned()),
                ("PI_CODING_AGENT", "true".to_owned()),
            ],
        }
    }

    /// A model's call: the session, its file (when it is on disk), the model and the thinking
    /// level as `context` has them when the call starts.
    pub fn for_call(context: &ToolContext) -> Self {
        let mut env = ShellEnv::plain();
        if let Some(id) = &context.session_id {
            env.set.push(("PI_SESSION_ID", id.clone()));
        }
        if let Some(file) = &context.session_file {
            env.set
                .push(("PI_SESSION_FILE", file.to_string_lossy().into_owned()));
        }
        if let Some(model) = &context.model {
            env.set.push(("PI_PROVIDER", model.provider.clone()));
            env.set.push(("PI_MODEL", model.id.clone()));
        }
        if let Some(level) = context.thinking_level {
            env.set
                .push(("PI_REASONING_LEVEL", level.as_str().to_owned()));
        }
        env
    }

    /// Applies the changes to a command about to be spawned.
    pub(super) fn apply(&self, command: &mut tokio::process::Command) {
        self.apply_to(command.as_std_mut());
    }

    /// Applies the changes to a command about to be spawned (a user's shell command, `!cmd` or
    /// RPC `bash`, which runs outside the tools).
    pub fn apply_to(&self, command: &mut std::process::Command) {
        for name in SESSION_NAMES {
            command.env_remove(name);
        }
        for (name, value) in &self.set {
            command.env(name, value);
        }
    }
}
