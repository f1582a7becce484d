//! Races with rho's own rights, as the red team ran them: a second process flips a path between
//! a directory inside the project and a symlink to the outside, as fast as it can, while the
//! model's calls run. Nothing outside may be created, listed or read, whichever way each flip
//! falls.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rho_gate::PermissionMode;
use rho_host::tools::{FindTool, GrepTool, WriteTool};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::harness::{OUTSIDE, World};

/// Calls made while the flipper runs.
const ROUNDS: usize = 300;

/// Swaps `a` and `b` (`renameat2(RENAME_EXCHANGE)`) until `stop`: one is a directory inside the
/// project, the other a symlink to the outside, so the name `a` keeps changing sides.
fn flip(a: &Path, b: &Path, stop: &AtomicBool) -> usize {
    let a = CString::new(a.as_os_str().as_bytes()).unwrap();
    let b = CString::new(b.as_os_str().as_bytes()).unwrap();
    let mut flips = 0;
    while !stop.load(Ordering::Relaxed) {
        // SAFETY: two NUL-terminated paths.
        let swapped = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                a.as_ptr(),
                libc::AT_FDCWD,
                b.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        assert_eq!(swapped, 0, "{}", std::io::Error::last_os_error());
        flips += 1;
    }
    flips
}

/// A world where `flip` is a directory holding `inner.txt` and `spare` a symlink to the outside.
fn flipping_world() -> World {
    let w = World::new();
    std::fs::create_dir(w.root.join("flip")).unwrap();
    std::fs::write(w.root.join("flip/inner.txt"), "inside\n").unwrap();
    std::os::unix::fs::symlink(&w.outside, w.root.join("spare")).unwrap();
    w
}

/// Runs `calls` while another thread flips `flip` and `spare`; returns the flips made.
async fn while_flipping<F, Fut>(w: &World, calls: F) -> usize
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let stop = Arc::new(AtomicBool::new(false));
    let flipper = {
        let (a, b, stop) = (w.root.join("flip"), w.root.join("spare"), stop.clone());
        std::thread::spawn(move || flip(&a, &b, &stop))
    };
    calls().await;
    stop.store(true, Ordering::Relaxed);
    flipper.join().unwrap()
}

#[tokio::test]
async fn write_through_a_flipping_directory_never_creates_anything_outside() {
    let w = flipping_world();
    let before = w.outside_snapshot();
    let policy = w.policy(PermissionMode::WorkspaceWrite);
    let tool = WriteTool::new(&w.root, Arc::default()).with_gate(policy);
    let cancel = CancellationToken::new();
    let flips = while_flipping(&w, || async {
        for round in 0..ROUNDS {
            let args = json!({"path": format!("flip/made-{round}/deep/f.txt"), "content": "x"});
            // Refused or written inside: either is fine; what matters is the outside.
            let _ = tool.write_file(&args, &cancel).await;
        }
    })
    .await;
    assert!(flips > 0);
    assert_eq!(
        w.outside_snapshot(),
        before,
        "directories were made outside the project"
    );
}

#[tokio::test]
async fn find_and_grep_through_a_flipping_directory_never_show_the_outside() {
    let w = flipping_world();
    let policy = w.policy(PermissionMode::WorkspaceWrite);
    let find = FindTool::new(&w.root).with_gate(policy.clone());
    let grep = GrepTool::new(&w.root).with_gate(policy);
    let cancel = CancellationToken::new();
    let mut shown = Vec::new();
    let flips = while_flipping(&w, || async {
        for _ in 0..ROUNDS {
            let found = find.find(&json!({"pattern": "*"}), &cancel).await;
            let searched = grep
                .grep(&json!({"pattern": "CONTENT|inside"}), &cancel)
                .await;
            for result in [found, searched] {
                shown.push(match result {
                    Ok(output) => serde_json::to_string(&output.content).unwrap(),
                    Err(error) => error.0,
                });
            }
        }
    })
    .await;
    assert!(flips > 0);
    for text in &shown {
        assert!(!text.contains(OUTSIDE), "outside content shown: {text}");
        assert!(!text.contains("secret.txt"), "outside name shown: {text}");
    }
}
