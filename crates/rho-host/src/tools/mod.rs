//! The coding tools the host offers the model (pi-reference §6), created per session with its `cwd`.

pub mod path;
pub mod read;
pub mod truncate;

pub use read::ReadTool;
