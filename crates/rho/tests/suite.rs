//! The crate's integration tests, one module per concern, linked into one test binary
//! (one link instead of one per file: less time and disk for `cargo test`).

mod cli_auth;
mod cli_budget;
mod cli_compaction;
mod cli_flags;
mod cli_gate;
mod cli_input;
mod cli_json;
mod cli_local;
mod cli_providers;
mod cli_retry;
mod cli_sessions;
mod cli_settings;
mod cli_signals;
mod cli_trust;
mod cli_workspace;
mod export_html;
mod interactive_commands;
mod interactive_sessions;
mod interactive_settings;
mod interactive_support;
mod interactive_tmux;
mod interactive_tmux_mock;
mod interactive_trust;
mod local_process;
mod rpc_every_command;
mod rpc_keys;
mod rpc_pi_client;
mod rpc_protocol;
mod rpc_sessions;
mod rpc_sessions_more;
mod session_crash;
mod session_pi_compat;
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tidy;
mod verify;
