//! The crate's integration tests, one module per concern, linked into one test binary
//! (one link instead of one per file: less time and disk for `cargo test`).

mod bash_tool;
mod compaction;
mod context_sources;
mod cross_provider;
mod edit_diff;
mod edit_tool;
mod find_tool;
mod frontmatter;
mod gate_escape;
mod grep_tool;
mod ls_tool;
mod mcp_host;
mod prompt_templates;
mod read_images;
mod read_tool;
mod search_vs_rg;
mod session_budget;
mod session_compaction;
mod session_events;
mod session_retry;
mod skills;
mod system_prompt;
mod tool_definitions;
mod write_tool;
