//! Pi's file mutation queue (pi-reference §6): `write` and `edit` serialise their mutations per
//! file, so two calls on one file never interleave their read-modify-write, while calls on
//! different files still run concurrently.
//!
//! A file is identified by its `realpath` (so a symlink and its target share one queue), or by
//! the resolved path when the file does not exist yet. Waiters are served first come, first
//! served (`tokio::sync::Mutex` is fair), which keeps calls on one file in call order: tools run
//! as futures polled in source order, and a call joins the queue on its first poll.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tokio::sync::OwnedMutexGuard;

/// One file's lock and the number of callers holding or waiting for it.
struct Entry {
    lock: Arc<tokio::sync::Mutex<()>>,
    users: usize,
}

/// Serialises file mutations per file; shared (behind an `Arc`) by the `write` and `edit` tools
/// of one session.
#[derive(Default)]
pub struct MutationQueue {
    /// Only files with a holder or a waiter have an entry, so the map does not grow with the
    /// number of files ever touched.
    entries: Mutex<HashMap<PathBuf, Entry>>,
}

impl MutationQueue {
    /// Waits until no earlier caller holds `path`'s lock, then holds it until the guard is
    /// dropped. Dropping the future while it waits gives up its place.
    pub async fn lock(&self, path: &Path) -> MutationGuard<'_> {
        let key = queue_key(path);
        let lock = {
            let mut entries = rho_stdx::sync::lock(&self.entries);
            let entry = entries.entry(key.clone()).or_insert_with(|| Entry {
                lock: Arc::new(tokio::sync::Mutex::new(())),
                users: 0,
            });
            entry.users += 1;
            Arc::clone(&entry.lock)
        };
        // Created before waiting, so a caller that gives up still releases its place.
        let slot = Slot { queue: self, key };
        let held = lock.lock_owned().await;
        MutationGuard {
            _held: held,
            _slot: slot,
        }
    }

    /// How many files currently have a holder or a waiter (for tests of the cleanup).
    pub fn active_files(&self) -> usize {
        rho_stdx::sync::lock(&self.entries).len()
    }

    /// Forgets one user of `key`, removing the entry when it was the last.
    fn release(&self, key: &Path) {
        let mut entries = rho_stdx::sync::lock(&self.entries);
        if let Some(entry) = entries.get_mut(key) {
            entry.users = entry.users.saturating_sub(1);
            if entry.users == 0 {
                entries.remove(key);
            }
        }
    }
}

/// One caller's place in a file's queue; leaving it (by drop) updates the entry's user count.
struct Slot<'a> {
    queue: &'a MutationQueue,
    key: PathBuf,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.queue.release(&self.key);
    }
}

/// Exclusive access to one file's mutations; released on drop.
pub struct MutationGuard<'a> {
    // Field order matters: the lock is released before the slot leaves the queue.
    _held: OwnedMutexGuard<()>,
    _slot: Slot<'a>,
}

/// The queue key: the file's real path, else the absolute path as given (Pi's
/// `realpathSync.native(resolve(path))` with its fallback).
fn queue_key(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|dir| dir.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    std::fs::canonicalize(&absolute).unwrap_or(absolute)
}
