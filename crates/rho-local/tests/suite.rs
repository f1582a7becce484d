//! rho-local's one integration-test binary.

mod grammar_builder;
mod model_file;
mod one_llama_thread;
mod real_model;
mod tool_call_parser;
mod tool_choice;
