//! The coding tools the host offers the model (pi-reference §6), created per session with its `cwd`.

pub mod bash;
pub mod edit;
pub mod find;
pub mod grep;
pub mod image;
pub mod ls;
pub mod mutation_queue;
pub mod path;
pub mod read;
mod read_lines;
pub mod tool_search;
pub mod truncate;
pub mod write;

pub use bash::BashTool;
pub use edit::EditTool;
pub use find::FindTool;
pub use grep::GrepTool;
pub use ls::LsTool;
pub use mutation_queue::MutationQueue;
pub use read::ReadTool;
pub use write::WriteTool;
