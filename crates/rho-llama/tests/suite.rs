//! rho-llama's one integration-test binary.

mod grammar_builder;
mod one_llama_thread;
mod real_model;
mod tool_call_parser;
mod tool_choice;
