#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The `write` tool (pi-reference §6.2) on real files, and the file mutation queue it shares
//! with `edit`.

use std::future::Future;
use std::path::Path;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use rho_agent::{AgentTool, ToolError, ToolOutput};
use rho_host::tools::{MutationQueue, WriteTool};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn tool(dir: &Path) -> WriteTool {
    WriteTool::new(dir, Arc::new(MutationQueue::default()))
}

async fn write(tool: &WriteTool, path: &str, content: &str) -> Result<ToolOutput, ToolError> {
    tool.write_file(
        &json!({ "path": path, "content": content }),
        &CancellationToken::new(),
    )
    .await
}

/// Polls `future` once: `true` if it completed.
async fn completes_at_once(future: impl Future) -> bool {
    let mut future = pin!(future);
    tokio::select! {
        biased;
        _ = &mut future => true,
        () = std::future::ready(()) => false,
    }
}

#[test]
fn the_tool_declares_pis_name_description_and_schema() {
    let tool = tool(Path::new("/tmp"));
    assert_eq!(tool.name(), "write");
    assert_eq!(
        tool.description(),
        "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically creates parent directories."
    );
    let expected = json!({
        "type": "object",
        "required": ["path", "content"],
        "properties": {
            "path": {"type": "string", "description": "Path to the file to write (relative or absolute)"},
            "content": {"type": "string", "description": "Content to write to the file"}
        }
    });
    assert_eq!(tool.parameters(), &expected);
    // Key order is part of what the model receives.
    assert_eq!(
        serde_json::to_string(tool.parameters()).unwrap(),
        serde_json::to_string(&expected).unwrap()
    );
}

#[tokio::test]
async fn writing_a_new_file_reports_its_utf8_bytes_and_the_path_as_given() {
    let dir = tempfile::tempdir().unwrap();
    let output = write(&tool(dir.path()), "notes.txt", "héllo → wörld\n")
        .await
        .unwrap();
    // 13 characters (JS length 14 with the newline), 18 UTF-8 bytes.
    assert_eq!(output, ToolOutput::text("Successfully wrote to notes.txt"));
    assert_eq!(
        std::fs::read(dir.path().join("notes.txt")).unwrap(),
        "héllo → wörld\n".as_bytes()
    );
}

#[tokio::test]
async fn missing_parent_directories_are_created() {
    let dir = tempfile::tempdir().unwrap();
    let output = write(&tool(dir.path()), "a/b/c/deep.rs", "fn main() {}")
        .await
        .unwrap();
    assert_eq!(
        output,
        ToolOutput::text("Successfully wrote to a/b/c/deep.rs")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a/b/c/deep.rs")).unwrap(),
        "fn main() {}"
    );
}

#[tokio::test]
async fn an_existing_file_is_overwritten_and_an_empty_write_reports_zero_bytes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "old content that is longer").unwrap();
    let output = write(&tool(dir.path()), "f.txt", "").await.unwrap();
    assert_eq!(output, ToolOutput::text("Successfully wrote to f.txt"));
    assert_eq!(std::fs::read(dir.path().join("f.txt")).unwrap(), b"");
}

#[tokio::test]
async fn the_path_is_resolved_like_pi_but_reported_as_given() {
    let dir = tempfile::tempdir().unwrap();
    let absolute = dir.path().join("abs.txt");
    let absolute = absolute.to_str().unwrap();
    let tool = tool(dir.path());

    let at = write(&tool, "@sub/../x.txt", "x").await.unwrap();
    assert_eq!(at, ToolOutput::text("Successfully wrote to @sub/../x.txt"));
    assert_eq!(std::fs::read(dir.path().join("x.txt")).unwrap(), b"x");

    let abs = write(&tool, absolute, "yz").await.unwrap();
    assert_eq!(
        abs,
        ToolOutput::text(format!("Successfully wrote to {absolute}"))
    );
    assert_eq!(std::fs::read(absolute).unwrap(), b"yz");
}

#[tokio::test]
async fn writing_to_a_directory_fails_with_nodes_error_text() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("folder")).unwrap();
    let error = write(&tool(dir.path()), "folder", "x").await.unwrap_err();
    let expected = format!(
        "EISDIR: illegal operation on a directory, open '{}'",
        dir.path().join("folder").display()
    );
    assert_eq!(error, ToolError::new(expected));
}

#[tokio::test]
async fn a_file_in_the_way_of_the_parent_directory_fails_with_nodes_error_text() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("plain"), "x").unwrap();
    let error = write(&tool(dir.path()), "plain/child.txt", "x")
        .await
        .unwrap_err();
    let expected = format!(
        "EEXIST: file already exists, mkdir '{}'",
        dir.path().join("plain").display()
    );
    assert_eq!(error, ToolError::new(expected));
}

#[tokio::test]
async fn a_cancelled_call_fails_with_operation_aborted_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let error = tool(dir.path())
        .write_file(&json!({"path": "f.txt", "content": "x"}), &cancel)
        .await
        .unwrap_err();
    assert_eq!(error, ToolError::new("Operation aborted"));
    assert!(!dir.path().join("f.txt").exists());
}

#[tokio::test]
async fn a_call_cancelled_while_queued_fails_with_operation_aborted() {
    let dir = tempfile::tempdir().unwrap();
    let queue = Arc::new(MutationQueue::default());
    let tool = WriteTool::new(dir.path(), Arc::clone(&queue));
    let held = queue.lock(&dir.path().join("f.txt")).await;
    let cancel = CancellationToken::new();
    let args = json!({"path": "f.txt", "content": "x"});
    let mut call = pin!(tool.write_file(&args, &cancel));
    assert!(
        !completes_at_once(&mut call).await,
        "must wait for the lock"
    );
    cancel.cancel();
    assert_eq!(call.await.unwrap_err(), ToolError::new("Operation aborted"));
    drop(held);
    assert!(!dir.path().join("f.txt").exists());
    assert_eq!(queue.active_files(), 0);
}

#[tokio::test]
async fn a_missing_argument_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let error = tool(dir.path())
        .write_file(&json!({"path": "f.txt"}), &CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ToolError::new("Invalid arguments: \"content\" must be a string")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_to_different_files_do_not_wait_for_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let queue = Arc::new(MutationQueue::default());
    let tool = WriteTool::new(dir.path(), Arc::clone(&queue));

    // While another mutation holds a.txt, a write to b.txt completes…
    let held = queue.lock(&dir.path().join("a.txt")).await;
    let other = tokio::time::timeout(Duration::from_secs(10), write(&tool, "b.txt", "b"))
        .await
        .expect("a write to another file must not wait")
        .unwrap();
    assert_eq!(other, ToolOutput::text("Successfully wrote to b.txt"));

    // …while a write to a.txt itself waits until the holder is done.
    let mut same = pin!(write(&tool, "a.txt", "a"));
    assert!(!completes_at_once(&mut same).await);
    assert!(!dir.path().join("a.txt").exists());
    drop(held);
    assert_eq!(
        same.await.unwrap(),
        ToolOutput::text("Successfully wrote to a.txt")
    );
    assert_eq!(queue.active_files(), 0);
}

#[tokio::test]
async fn a_symlink_and_its_target_share_one_queue_entry() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target.txt");
    std::fs::write(&target, "t").unwrap();
    std::os::unix::fs::symlink(&target, dir.path().join("link.txt")).unwrap();
    let queue = Arc::new(MutationQueue::default());
    let tool = WriteTool::new(dir.path(), Arc::clone(&queue));

    let held = queue.lock(&target).await;
    let mut through_link = pin!(write(&tool, "link.txt", "via link"));
    assert!(!completes_at_once(&mut through_link).await);
    assert_eq!(queue.active_files(), 1);
    drop(held);
    through_link.await.unwrap();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "via link");
    assert_eq!(queue.active_files(), 0);
}

#[test]
fn arguments_pass_through_unprepared() {
    let args: Value = json!({"path": "p", "content": "c", "extra": 1});
    assert_eq!(
        tool(Path::new("/tmp")).prepare_arguments(args.clone()),
        Ok(args)
    );
}
