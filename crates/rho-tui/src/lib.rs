//! rho's interactive mode: a full-screen terminal UI over an [`rho_host::AgentSession`].
//!
//! The parts, each testable alone: [`app::App`] holds the state and reduces session events into
//! it ([`app::App::apply`]); [`keys`] turns keys into state edits and [`keys::Command`]s;
//! [`view::draw`] renders the state into a ratatui frame (pure: state and clock in, cells out);
//! [`event_loop::run`] wires them to a real terminal and a real session.

pub mod app;
pub mod approval;
pub mod completion;
pub mod editor;
pub mod event_loop;
pub mod keybindings;
pub mod keys;
mod overlay_keys;
pub mod picker;
pub mod rules_file;
pub mod sessions;
mod side;
pub mod slash;
pub mod status;
pub mod terminal;
pub mod terminal_report;
pub mod theme;
pub mod transcript;
pub mod user_shell;
pub mod view;

pub use app::App;
pub use event_loop::{Hooks, ThinkingHook, TuiError, run};
pub use keys::Command;
pub use status::SessionInfo;
