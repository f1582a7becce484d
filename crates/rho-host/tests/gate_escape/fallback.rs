//! Where the kernel lacks Landlock: `bash` runs unconfined and says so in `details`, and the
//! path gate alone still keeps the file tools inside the roots.

use std::sync::Arc;

use rho_gate::{LazySandbox, PermissionMode, Sandbox};
use serde_json::{Value, json};

use super::harness::{Expect, World, assert_contained, run_call};

const WARNING: &str = "bash sandbox unavailable (the kernel does not support Landlock); commands run unconfined, only the path gate of the file tools applies";

#[tokio::test]
async fn without_landlock_bash_says_so_in_details_and_the_path_gate_still_refuses() {
    let w = World::new();
    let policy = w.policy(PermissionMode::WorkspaceWrite);
    let unavailable = Sandbox::unavailable(&policy, "the kernel does not support Landlock");
    assert_eq!(unavailable.status().warning().as_deref(), Some(WARNING));
    assert_eq!(unavailable.tmp_dir(), None);
    let sandbox = Arc::new(LazySandbox::from(unavailable));

    let outcome = run_call(
        policy.clone(),
        Some(sandbox.clone()),
        "bash",
        json!({"command": "echo ran"}),
    )
    .await;
    assert!(outcome.executed && !outcome.is_error, "{outcome:?}");
    let result: Value = serde_json::from_str(&outcome.json).unwrap();
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "ran\n"}])
    );
    assert_eq!(result["details"], json!({"sandbox": WARNING}));

    for (tool, args) in [
        ("read", json!({"path": "../outside/secret.txt"})),
        (
            "write",
            json!({"path": "../outside/new.txt", "content": "x"}),
        ),
        ("ls", json!({"path": "link_dir"})),
    ] {
        let before = w.outside_snapshot();
        let outcome = run_call(policy.clone(), Some(sandbox.clone()), tool, args).await;
        assert_contained(
            &w,
            &before,
            tool,
            &outcome,
            Expect::Refused("is outside the allowed directories"),
        );
    }
}
