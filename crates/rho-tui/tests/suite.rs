//! The crate's integration tests, one module per concern, linked into one test binary.

mod approval_prompt;
mod commands_render;
mod editor_input;
mod events;
mod keys;
mod markdown;
mod reducer;
mod render_work;
mod sessions_ui;
mod slash_commands;
mod status_branch;
mod tool_blocks;
mod widgets;
