//! llama.cpp, once per process: the backend, and each model file loaded once and shared.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::model::params::LlamaModelParams;
use rho_ai::ErrorKind;

use rho_local::{ModelFileError, verify_model};
use rho_stdx::sync::lock;

/// Why a local model call failed before or while generating.
#[derive(Debug, thiserror::Error)]
pub enum LocalError {
    /// The model file is missing or unusable.
    #[error(transparent)]
    ModelFile(#[from] ModelFileError),
    /// llama.cpp's backend could not start.
    #[error("cannot start llama.cpp: {0}")]
    Backend(String),
    /// llama.cpp rejected the file (a GGUF it cannot load: truncated, unsupported, damaged).
    #[error("llama.cpp cannot load the model {}: {detail}", path.display())]
    Load {
        /// The model file.
        path: PathBuf,
        /// llama.cpp's reason, as far as it gives one.
        detail: String,
    },
    /// The prompt does not fit the context window.
    #[error(
        "prompt is too long for the local model: {prompt_tokens} tokens, context window {context_window} tokens"
    )]
    ContextOverflow {
        /// Tokens in the prompt.
        prompt_tokens: usize,
        /// The window.
        context_window: u32,
    },
    /// llama.cpp failed while running the model.
    #[error("local model failed: {0}")]
    Inference(String),
}

impl LocalError {
    /// The classification the error event carries.
    pub fn kind(&self) -> ErrorKind {
        match self {
            LocalError::ModelFile(error) => error.kind(),
            LocalError::ContextOverflow { .. } => ErrorKind::ContextOverflow,
            LocalError::Backend(_) | LocalError::Load { .. } | LocalError::Inference(_) => {
                ErrorKind::Provider
            }
        }
    }
}

/// The process-wide llama.cpp backend (it may be initialised only once).
pub(crate) fn backend() -> Result<&'static LlamaBackend, LocalError> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            // llama.cpp logs every tensor to stderr by default, which would interleave with
            // rho's own output.
            llama_cpp_2::send_logs_to_tracing(
                llama_cpp_2::LogOptions::default().with_logs_enabled(false),
            );
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| LocalError::Backend(e.clone()))
}

/// The model at `path`, loaded on first use and shared by every later call. Blocking: call it
/// from a blocking thread.
pub(crate) fn load_model(path: &Path) -> Result<Arc<LlamaModel>, LocalError> {
    static MODELS: OnceLock<Mutex<HashMap<PathBuf, Arc<LlamaModel>>>> = OnceLock::new();
    let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let models = MODELS.get_or_init(Mutex::default);
    // Held while loading, so two first calls do not load the same file twice.
    let mut models = lock(models);
    if let Some(model) = models.get(&key) {
        return Ok(Arc::clone(model));
    }
    // Checked first: the binding asserts the file exists (a panic in debug builds), and a typed
    // "missing / not GGUF / truncated" beats llama.cpp's one generic load failure.
    verify_model(path)?;
    let backend = backend()?;
    let model =
        LlamaModel::load_from_file(backend, &key, &LlamaModelParams::default()).map_err(|e| {
            LocalError::Load {
                path: path.to_path_buf(),
                detail: e.to_string(),
            }
        })?;
    let model = Arc::new(model);
    models.insert(key, Arc::clone(&model));
    Ok(model)
}
