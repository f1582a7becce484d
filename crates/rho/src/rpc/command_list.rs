//! `get_commands` (Pi 1.6's `rpc-mode.js`): the built-in `/mcp` command, then the prompt
//! templates (`/name`) and skills (`/skill:name`) a client may offer, each with Pi's
//! `sourceInfo`.

use std::path::{Path, PathBuf};

use rho_host::prompt::PromptResources;
use serde_json::{Value, json};

/// Where the user's and the project's resources live.
pub struct Roots {
    /// `RHO_HOME`.
    pub home: Option<PathBuf>,
    /// The project's `.rho` directory.
    pub project: PathBuf,
}

/// `{commands:[…]}`: `/mcp` when MCP is on (as Pi lists its built-in extension's command),
/// templates, then skills, in load order.
pub fn commands_json(resources: &PromptResources, roots: &Roots, mcp: bool) -> Value {
    let mut commands = Vec::new();
    if mcp {
        commands.push(json!({
            "name": "mcp",
            "description": rho_host::mcp::MCP_COMMAND_DESCRIPTION,
            "source": "extension",
            "sourceInfo": {
                "path": "builtin:mcp",
                "source": "builtin",
                "scope": "temporary",
                "origin": "top-level",
            },
        }));
    }
    for template in &resources.templates {
        let prompts = |root: &Path| root.join("prompts");
        let base = [
            roots.home.as_deref().map(prompts),
            Some(prompts(&roots.project)),
        ]
        .into_iter()
        .flatten()
        .find(|dir| template.file_path.starts_with(dir));
        commands.push(json!({
            "name": template.name,
            "description": template.description,
            "source": "prompt",
            "sourceInfo": source_info(&template.file_path, base.as_deref(), roots),
        }));
    }
    for skill in &resources.skills {
        commands.push(json!({
            "name": format!("skill:{}", skill.name),
            "description": skill.description,
            "source": "skill",
            "sourceInfo": source_info(&skill.file_path, Some(&skill.base_dir), roots),
        }));
    }
    json!({ "commands": commands })
}

/// Pi's synthetic source info: `local`, scoped `user` under `RHO_HOME`, `project` under the
/// project's `.rho`, `temporary` elsewhere (a `--skill` or `--prompt-template` path).
fn source_info(path: &Path, base_dir: Option<&Path>, roots: &Roots) -> Value {
    let scope = if roots
        .home
        .as_deref()
        .is_some_and(|home| path.starts_with(home))
    {
        "user"
    } else if path.starts_with(&roots.project) {
        "project"
    } else {
        "temporary"
    };
    let base_dir = base_dir
        .map(Path::to_path_buf)
        .or_else(|| path.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    json!({
        "path": path.to_string_lossy(),
        "source": "local",
        "scope": scope,
        "origin": "top-level",
        "baseDir": base_dir.to_string_lossy(),
    })
}
