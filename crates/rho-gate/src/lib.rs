//! rho-gate: the host's gate: permission modes, the path gate, command rules, the bash sandbox.
//!
//! The policy logic here is pure (paths in, decisions out) apart from looking at the file
//! system to follow symlinks; the host runs it before every tool call (`rho-host`'s `gate`).
//! The sandbox confines the `bash` child with Landlock on Linux.
//!
//! Limits, stated once: Landlock can only *grant* access beneath directories, so inside an
//! allowed root `bash` can still read or write a secret file (the secrets deny list binds the
//! file tools only); command rules match command prefixes and are a convenience, not a
//! boundary (`bash -c "git push"` or `eval` hide a command from them); `--no-network` denies
//! TCP bind/connect through Landlock (ABI ≥ 4) and additionally tries a private network
//! namespace, which only succeeds with CAP_SYS_ADMIN — without it UDP and unix sockets stay open.

pub mod command;
mod links;
mod mode;
mod open;
mod outputs;
mod policy;
mod protected;
mod realpath;
mod refusal;
pub mod sandbox;
mod secrets;
mod tool_env;
mod walk;
mod write;

pub use command::{CommandDecision, CommandRules, Decision, Rule, RulesError};
pub use links::SecretInodes;
pub use mode::{ParseModeError, PermissionMode};
pub use open::{GuardedOpenError, SearchOpen, open_regular};
pub use outputs::{MAX_OUTPUT_FILE_BYTES, create_output_file, output_dir};
pub use policy::{Access, CREDENTIAL_FILES, GatePolicy};
pub use protected::{PROJECT_DIR, ProtectedPaths};
pub use realpath::real_path;
pub use refusal::Refusal;
pub use sandbox::{LazySandbox, Sandbox, SandboxError, SandboxStatus};
pub use secrets::{DEFAULT_SECRET_GLOBS, SecretGlobError, SecretRules};
pub use tool_env::{
    DEFAULT_EXCLUDED, Inherit, ToolEnvironment, ToolEnvironmentError, ToolEnvironmentSettings,
};
pub use write::write_regular;
