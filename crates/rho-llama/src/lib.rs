//! rho-llama: the local model's engine, llama.cpp through `llama-cpp-2`, and the model process
//! `rho-llama` that runs it for rho (see `rho_local`, which starts it and speaks its protocol).
//!
//! [`LlamaProvider`] runs a GGUF model in the calling process; [`serve`] answers the line
//! protocol of `rho_local::wire` with it. Tool calls use the Hermes/Qwen `<tool_call>`
//! convention, constrained by a grammar built from the tools' JSON Schemas: `required` on the
//! first turn of a prompt, `auto` afterwards.

mod emit;
mod engine;
mod generate;
pub mod grammar;
pub mod prompt;
mod provider;
mod serve;
pub mod tool_call;
mod worker;

pub use engine::LocalError;
pub use generate::ABORTED_MESSAGE;
pub use grammar::tool_call_grammar;
pub use prompt::{ToolChoice, tool_choice_for};
pub use provider::LlamaProvider;
pub use serve::serve;
