//! A symlink swapped in between the preflight check and the open, for the tools that look into
//! directories. The swap is deterministic: the gate checks the call, the test swaps, then the
//! tool runs, exactly the window a concurrent `bash` could use.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;

use rho_agent::{ToolError, ToolOutput};
use rho_gate::{GatePolicy, PermissionMode};
use rho_host::gate::Gate;
use rho_host::tools::{FindTool, GrepTool, LsTool};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::harness::{OUTSIDE, World};

/// Which tool, with or without the gate's open-time re-check.
async fn call(
    tool: &str,
    w: &World,
    gate: Option<Arc<GatePolicy>>,
    args: &Value,
) -> Result<ToolOutput, ToolError> {
    let cancel = CancellationToken::new();
    match tool {
        "ls" => {
            LsTool::new(&w.root)
                .with_gate(gate)
                .list(args, &cancel)
                .await
        }
        "find" => {
            FindTool::new(&w.root)
                .with_gate(gate)
                .find(args, &cancel)
                .await
        }
        "grep" => {
            GrepTool::new(&w.root)
                .with_gate(gate)
                .grep(args, &cancel)
                .await
        }
        other => panic!("no such tool {other}"),
    }
}

/// The text of a successful result.
fn text(output: &ToolOutput) -> String {
    serde_json::to_value(&output.content).unwrap()[0]["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Replaces the directory `sub` of the project with a symlink to `target`.
fn swap_dir(w: &World, target: &Path) {
    std::fs::remove_dir_all(w.root.join("sub")).unwrap();
    symlink(target, w.root.join("sub")).unwrap();
}

fn outside_refusal(w: &World, real: &Path) -> String {
    format!(
        "Path {} is outside the allowed directories: {}. Use --allow-dir to allow it.",
        real.display(),
        w.root.display()
    )
}

#[tokio::test]
async fn a_directory_swapped_for_a_symlink_after_the_check_is_not_listed_or_searched() {
    for (tool, args, unguarded) in [
        ("ls", json!({"path": "sub"}), "secret.txt"),
        ("find", json!({"pattern": "*", "path": "sub"}), "secret.txt"),
        (
            "grep",
            json!({"pattern": "OUTSIDE", "path": "sub"}),
            "secret.txt:1: OUTSIDE-CONTENT",
        ),
    ] {
        let w = World::new();
        let policy = w.policy(PermissionMode::WorkspaceWrite);
        assert_eq!(Gate::new(policy.clone()).check(tool, &args).await, Ok(()));
        swap_dir(&w, &w.outside);

        let error = call(tool, &w, Some(policy), &args).await.unwrap_err();
        assert_eq!(error.0, outside_refusal(&w, &w.outside), "{tool}");
        // The swap is a real escape for the tool without the re-check.
        let leaked = call(tool, &w, None, &args).await.unwrap();
        assert_eq!(text(&leaked), unguarded, "{tool}");
    }
}

#[tokio::test]
async fn a_file_swapped_for_a_symlink_after_the_check_is_not_searched_by_grep() {
    let w = World::new();
    let policy = w.policy(PermissionMode::WorkspaceWrite);
    std::fs::write(w.root.join("sub/notes.txt"), "nothing here\n").unwrap();
    let args = json!({"pattern": "OUTSIDE", "path": "sub/notes.txt", "context": 1});
    assert_eq!(Gate::new(policy.clone()).check("grep", &args).await, Ok(()));
    std::fs::remove_file(w.root.join("sub/notes.txt")).unwrap();
    let target = w.outside.join("secret.txt");
    symlink(&target, w.root.join("sub/notes.txt")).unwrap();

    let error = call("grep", &w, Some(policy), &args).await.unwrap_err();
    assert_eq!(error.0, outside_refusal(&w, &target));
    assert!(!error.0.contains(OUTSIDE));
}

#[tokio::test]
async fn a_directory_swapped_for_one_inside_the_roots_is_still_listed() {
    let w = World::new();
    let policy = w.policy(PermissionMode::WorkspaceWrite);
    std::fs::create_dir(w.root.join("other")).unwrap();
    std::fs::write(w.root.join("other/inner.txt"), "x").unwrap();
    swap_dir(&w, &w.root.join("other"));
    let listed = call("ls", &w, Some(policy.clone()), &json!({"path": "sub"})).await;
    assert_eq!(text(&listed.unwrap()), "inner.txt");
    let found = call(
        "find",
        &w,
        Some(policy),
        &json!({"pattern": "*.txt", "path": "sub"}),
    )
    .await;
    assert_eq!(text(&found.unwrap()), "inner.txt");
}
