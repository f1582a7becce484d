//! The crate's integration tests, one module per concern, linked into one test binary.

mod events;
mod keys;
mod markdown;
mod reducer;
mod render_work;
mod tool_blocks;
mod widgets;
mod approval_prompt;
mod editor_input;
mod status_branch;
