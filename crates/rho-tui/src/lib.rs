//! rho's interactive mode: a full-screen terminal UI over an [`rho_host::AgentSession`].
//!
//! The parts, each testable alone: [`app::App`] holds the state, and its one reducer
//! ([`app::App::update`]) takes every [`Input`] (keys, pastes, session events, the clock, the
//! results of work done beside it) and returns the [`Effect`]s the event loop must carry out;
//! [`view::draw`] renders the state into a ratatui frame (pure: state and clock in, cells out);
//! [`event_loop::run`] wires them to a real terminal and a real session, carrying out the
//! effects (`effects`).

pub mod app;
pub mod approval;
pub mod completion;
pub mod dialogs;
pub mod editor;
mod effects;
pub mod event_loop;
pub mod hooks;
pub mod keybindings;
pub mod picker;
pub mod rules_file;
pub mod sessions;
pub mod slash;
pub mod status;
pub mod terminal;
pub mod terminal_report;
pub mod theme;
pub mod transcript;
pub mod trust_prompt;
pub mod user_shell;
pub mod view;

pub use app::{App, Effect, Input, Startup};
pub use event_loop::{Hooks, ThinkingHook, TuiError, run};
pub use status::SessionInfo;
