//! The built-in tool set of a session: which tools exist, which are on by default, and how
//! `--tools` picks among them (pi-reference §6 intro, §7.2).

use std::path::Path;
use std::sync::Arc;

use rho_agent::AgentTool;
use rho_gate::{GatePolicy, LazySandbox};

use crate::tools::{
    BashTool, EditTool, FindTool, GrepTool, LsTool, MutationQueue, ReadTool, WriteTool,
};

/// Every built-in tool, by name.
pub const BUILTIN_TOOLS: [&str; 7] = ["read", "bash", "edit", "write", "grep", "find", "ls"];

/// Pi's default active set, in Pi's order.
pub const DEFAULT_TOOLS: [&str; 4] = ["read", "bash", "edit", "write"];

/// How the tools are confined: `read`/`write`/`edit`/`ls`/`grep`/`find` open files and
/// directories through the gate's policy (the re-check at open time, against a symlink swapped
/// in after preflight), `bash` runs inside the sandbox. The preflight check itself is
/// [`crate::gate::Gate`], installed as the tool hooks.
#[derive(Clone)]
pub struct Confinement {
    /// The policy the file tools open through.
    pub policy: Arc<GatePolicy>,
    /// The OS sandbox for `bash`, prepared on its first call (`None`: the path gate alone).
    pub sandbox: Option<Arc<LazySandbox>>,
}

/// Creates the named tools for a session rooted at `cwd`, in the order given. Unknown names are
/// ignored (as Pi does: they may name tools of extensions), and so are repeats. `write` and
/// `edit` share one file-mutation queue. Without `confinement` the tools touch what they are
/// asked to, as Pi's do.
pub fn create_tools(
    cwd: &Path,
    names: &[&str],
    confinement: Option<&Confinement>,
) -> Vec<Arc<dyn AgentTool>> {
    let gate = confinement.map(|c| c.policy.clone());
    let sandbox = confinement.and_then(|c| c.sandbox.clone());
    let environment = confinement.map(|c| c.policy.tool_environment().clone());
    let queue = Arc::new(MutationQueue::default());
    let mut tools: Vec<Arc<dyn AgentTool>> = Vec::with_capacity(names.len());
    for name in names {
        if tools.iter().any(|tool| tool.name() == *name) {
            continue;
        }
        let tool: Arc<dyn AgentTool> = match *name {
            "read" => Arc::new(ReadTool::new(cwd).with_gate(gate.clone())),
            "bash" => Arc::new(
                BashTool::new(cwd)
                    .with_sandbox(sandbox.clone())
                    .with_environment(environment.clone()),
            ),
            "edit" => Arc::new(EditTool::new(cwd, queue.clone()).with_gate(gate.clone())),
            "write" => Arc::new(WriteTool::new(cwd, queue.clone()).with_gate(gate.clone())),
            "grep" => Arc::new(GrepTool::new(cwd).with_gate(gate.clone())),
            "find" => Arc::new(FindTool::new(cwd).with_gate(gate.clone())),
            "ls" => Arc::new(LsTool::new(cwd).with_gate(gate.clone())),
            _ => continue,
        };
        tools.push(tool);
    }
    tools
}
