//! Errors, each with the wording Pi prints. None of them ever holds a key.

use std::path::PathBuf;

use rho_ai::ErrorKind;

/// `--provider` / `--model` could not be resolved (Pi's `resolveCliModel` errors).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// The registry holds no model at all.
    #[error("No models available. Check your installation or add models to models.json.")]
    NoModels,
    /// `--provider` names no known provider.
    #[error(
        "Unknown provider \"{provider}\". Use --list-models to see available providers/models."
    )]
    UnknownProvider {
        /// The provider as given.
        provider: String,
    },
    /// No model matches; `model` is `provider/pattern` when a provider was known, else the input.
    #[error("Model \"{model}\" not found. Use --list-models to see available models.")]
    NotFound {
        /// What was looked for.
        model: String,
    },
}

/// Why `models.json` was ignored (only the built-in models are used then).
///
/// The texts are Pi's, ending in the file's path.
#[derive(Debug, thiserror::Error)]
pub enum ModelsJsonError {
    /// The file exists but could not be read.
    #[error("Failed to load models.json: {source}\n\nFile: {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O failure.
        source: std::io::Error,
    },
    /// The file is not JSON (after removing `//` comments and trailing commas).
    #[error("Failed to parse models.json: {message}\n\nFile: {}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message (position only, never content).
        message: String,
    },
    /// The JSON does not have the schema's shape; one `<path>: <message>` line per problem.
    #[error("Invalid models.json schema:\n{}\n\nFile: {}", errors.join("\n"), path.display())]
    Schema {
        /// The file.
        path: PathBuf,
        /// Lines of the form `  - providers.x.models.0.id: must be string`.
        errors: Vec<String>,
    },
    /// The shape is right but a rule is broken (e.g. a custom provider without `baseUrl`).
    #[error("Failed to load models.json: {message}\n\nFile: {}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The rule, in Pi's words.
        message: String,
    },
}

/// Why `auth.json` was ignored (no stored credentials are used then).
#[derive(Debug, thiserror::Error)]
pub enum AuthFileError {
    /// The file exists but could not be read.
    #[error("Failed to load auth.json: {source}\n\nFile: {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O failure.
        source: std::io::Error,
    },
    /// The file is not a JSON object.
    #[error("Failed to parse auth.json: {message}\n\nFile: {}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message (position only, never content).
        message: String,
    },
}

/// A configured key or header value could not be produced for a request.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// A `!command` failed, timed out or printed nothing.
    #[error("Failed to resolve {description} from shell command: {command}")]
    CommandFailed {
        /// What was being resolved, e.g. `API key for provider "local"`.
        description: String,
        /// The command (without its `!`).
        command: String,
    },
    /// A `$NAME` the value names is unset or empty.
    #[error(
        "Failed to resolve {description} from environment variable{}: {}",
        if names.len() == 1 { "" } else { "s" },
        names.join(", ")
    )]
    VariablesUnset {
        /// What was being resolved.
        description: String,
        /// The unset variables, each once, in order of appearance.
        names: Vec<String>,
    },
    /// `authHeader: true` but the provider has no key.
    #[error("No API key found for \"{provider}\"")]
    NoApiKey {
        /// The provider.
        provider: String,
    },
}

impl KeyError {
    /// Every key problem is a credentials problem.
    pub fn kind(&self) -> ErrorKind {
        ErrorKind::Auth
    }
}
