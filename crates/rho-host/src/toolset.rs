//! The built-in tool set of a session: which tools exist, which are on by default, and how
//! `--tools` picks among them (pi-reference §6 intro, §7.2).

use std::path::Path;
use std::sync::Arc;

use rho_agent::AgentTool;

use crate::tools::{
    BashTool, EditTool, FindTool, GrepTool, LsTool, MutationQueue, ReadTool, WriteTool,
};

/// Every built-in tool, by name.
pub const BUILTIN_TOOLS: [&str; 7] = ["read", "bash", "edit", "write", "grep", "find", "ls"];

/// Pi's default active set, in Pi's order.
pub const DEFAULT_TOOLS: [&str; 4] = ["read", "bash", "edit", "write"];

/// Creates the named tools for a session rooted at `cwd`, in the order given. Unknown names are
/// ignored (as Pi does: they may name tools of extensions), and so are repeats. `write` and
/// `edit` share one file-mutation queue.
pub fn create_tools(cwd: &Path, names: &[&str]) -> Vec<Arc<dyn AgentTool>> {
    let queue = Arc::new(MutationQueue::default());
    let mut tools: Vec<Arc<dyn AgentTool>> = Vec::with_capacity(names.len());
    for name in names {
        if tools.iter().any(|tool| tool.name() == *name) {
            continue;
        }
        let tool: Arc<dyn AgentTool> = match *name {
            "read" => Arc::new(ReadTool::new(cwd)),
            "bash" => Arc::new(BashTool::new(cwd)),
            "edit" => Arc::new(EditTool::new(cwd, queue.clone())),
            "write" => Arc::new(WriteTool::new(cwd, queue.clone())),
            "grep" => Arc::new(GrepTool::new(cwd)),
            "find" => Arc::new(FindTool::new(cwd)),
            "ls" => Arc::new(LsTool::new(cwd)),
            _ => continue,
        };
        tools.push(tool);
    }
    tools
}
