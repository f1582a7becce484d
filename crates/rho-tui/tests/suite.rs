//! The crate's integration tests, one module per concern, linked into one test binary.

mod approval_prompt;
mod at_paths;
mod commands_render;
mod drive;
mod editor_input;
mod events;
mod host_dialogs;
mod keyboard;
mod keys;
mod markdown;
mod reducer;
mod render_work;
mod replay;
mod resume_picker;
mod session_pickers;
mod sessions_ui;
mod slash_commands;
mod status_branch;
mod summary_blocks;
mod tool_blocks;
mod tree_ui;
mod widgets;
