//! Moving around the tree and leaving it: branches, labels, the session name, forks.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::SystemTime;

use rho_ai::AgentMessage;
use serde_json::Value;

use crate::context::branch_path;
use crate::entry::{EntryKind, SessionEntry, SessionHeader};
use crate::error::{OpenWarning, SessionError};
use crate::file::SessionFile;
use crate::load::load;
use crate::message::Buffer;
use crate::time::{file_timestamp, iso_timestamp, new_entry_id, new_session_id};

/// A user message the session can be forked at (Pi's `getUserMessagesForForking`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForkMessage {
    /// The `message` entry's id.
    pub entry_id: String,
    /// The message's text blocks, concatenated.
    pub text: String,
}

impl SessionFile {
    /// Appends a `message` entry.
    pub fn append_message(&mut self, message: AgentMessage) -> Result<String, SessionError> {
        self.append(EntryKind::message(message))
    }

    /// Appends a `model_change` entry.
    pub fn append_model_change(
        &mut self,
        provider: &str,
        model_id: &str,
    ) -> Result<String, SessionError> {
        self.append(EntryKind::ModelChange {
            provider: provider.to_owned(),
            model_id: model_id.to_owned(),
        })
    }

    /// Appends a `thinking_level_change` entry.
    pub fn append_thinking_level_change(&mut self, level: &str) -> Result<String, SessionError> {
        self.append(EntryKind::ThinkingLevelChange {
            thinking_level: level.to_owned(),
        })
    }

    /// Appends a `session_info` entry naming the session (trimmed; empty clears the name).
    pub fn append_session_info(&mut self, name: &str) -> Result<String, SessionError> {
        self.append(EntryKind::SessionInfo {
            name: Some(name.trim().to_owned()),
        })
    }

    /// Sets (`Some` non-empty) or clears a label on an existing entry.
    pub fn append_label_change(
        &mut self,
        target_id: &str,
        label: Option<&str>,
    ) -> Result<String, SessionError> {
        self.require(target_id)?;
        self.append(EntryKind::Label {
            target_id: target_id.to_owned(),
            label: label.map(str::to_owned),
        })
    }

    /// Moves the leaf to an earlier entry; the next append starts a branch there.
    pub fn branch(&mut self, entry_id: &str) -> Result<(), SessionError> {
        self.require(entry_id)?;
        self.leaf = Some(entry_id.to_owned());
        Ok(())
    }

    /// Moves the leaf before the first entry: the next append is a new root.
    pub fn reset_leaf(&mut self) {
        self.leaf = None;
    }

    /// Branches at `from` (`None`: the root) and records a summary of the abandoned path there
    /// as a `branch_summary` entry (with the summary call's `usage`, Pi 1.6), which becomes the
    /// leaf.
    pub fn branch_with_summary(
        &mut self,
        from: Option<&str>,
        summary: &str,
        details: Option<Value>,
        from_hook: Option<bool>,
        usage: Option<Value>,
    ) -> Result<String, SessionError> {
        if let Some(id) = from {
            self.require(id)?;
        }
        self.append_entry(
            from.map(str::to_owned),
            EntryKind::BranchSummary {
                from_id: from.unwrap_or("root").to_owned(),
                summary: summary.to_owned(),
                details,
                usage,
                from_hook,
            },
        )
    }

    /// Leaves the branch's last assistant message, and the tool results after it, out of the
    /// model's context from here on (Pi 1.6's recovery of a failed attempt): one `context_edit`
    /// with `replacement: null` for each. Returns the new entries' ids (none without an
    /// assistant message on the branch).
    pub fn omit_last_reply(&mut self) -> Result<Vec<String>, SessionError> {
        let mut targets = Vec::new();
        let mut found = false;
        for entry in self.branch_entries(None).into_iter().rev() {
            let role = entry.kind.as_message().map(|m| m.role().to_owned());
            match role.as_deref() {
                Some("toolResult") => targets.push(entry.id.clone()),
                Some("assistant") => {
                    targets.push(entry.id.clone());
                    found = true;
                    break;
                }
                _ => break,
            }
        }
        if !found {
            return Ok(Vec::new());
        }
        // The assistant message first, then its results in order.
        targets.reverse();
        let mut ids = Vec::with_capacity(targets.len());
        for target_id in targets {
            ids.push(self.append(EntryKind::ContextEdit {
                target_id,
                replacement: None,
            })?);
        }
        Ok(ids)
    }

    /// The entries from the root to `leaf_id` (the current leaf when `None`).
    pub fn branch_entries(&self, leaf_id: Option<&str>) -> Vec<&SessionEntry> {
        match leaf_id.or(self.leaf.as_deref()) {
            Some(id) if self.index.contains_key(id) => branch_path(&self.entries, &self.index, id),
            _ => Vec::new(),
        }
    }

    /// When the latest `compaction` on the current branch was written (epoch ms), found by
    /// walking up from the leaf: no allocation, and usually only a few steps, because a
    /// compaction sits near the leaf of the branch it compacted.
    pub fn latest_compaction_ms(&self) -> Option<i64> {
        let mut current = self.leaf.as_deref();
        let mut steps = 0;
        while let Some(id) = current {
            let entry = self.entry(id)?;
            if matches!(entry.kind, EntryKind::Compaction { .. }) {
                return crate::time::parse_iso_ms(&entry.timestamp);
            }
            // A parent cycle (a damaged file) ends the walk instead of looping.
            steps += 1;
            if steps > self.entries.len() {
                return None;
            }
            current = entry.parent_id.as_deref();
        }
        None
    }

    /// The children of an entry, in file order.
    pub fn children(&self, parent_id: Option<&str>) -> Vec<&SessionEntry> {
        self.entries
            .iter()
            .filter(|e| e.parent_id.as_deref() == parent_id)
            .collect()
    }

    /// Every label in force: the latest `label` entry per target, cleared ones removed, with
    /// the time it was set.
    pub fn labels(&self) -> HashMap<String, (String, String)> {
        let mut labels = HashMap::new();
        for entry in &self.entries {
            if let EntryKind::Label { target_id, label } = &entry.kind {
                match label.as_deref().filter(|l| !l.is_empty()) {
                    Some(l) => {
                        labels.insert(target_id.clone(), (l.to_owned(), entry.timestamp.clone()));
                    }
                    None => {
                        labels.remove(target_id);
                    }
                }
            }
        }
        labels
    }

    /// The label on an entry.
    pub fn label(&self, entry_id: &str) -> Option<String> {
        self.labels().remove(entry_id).map(|(label, _)| label)
    }

    /// The session's name: the latest `session_info` entry's, trimmed; empty means none.
    pub fn session_name(&self) -> Option<String> {
        self.entries
            .iter()
            .rev()
            .find_map(|e| match &e.kind {
                EntryKind::SessionInfo { name } => {
                    Some(name.as_deref().map(str::trim).unwrap_or(""))
                }
                _ => None,
            })
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
    }

    /// The user messages the session can be forked at, in file order (Pi's
    /// `getUserMessagesForForking`: every `message` entry with role user and non-empty text).
    pub fn fork_messages(&self) -> Vec<ForkMessage> {
        self.entries
            .iter()
            .filter_map(|e| {
                let EntryKind::Message(message) = &e.kind else {
                    return None;
                };
                // Only user messages are fork points: skip decoding the rest.
                if message.role_hint().is_some_and(|r| r != "user") {
                    return None;
                }
                let user = message.get().ok()?.as_user()?;
                let text = user.text_content();
                (!text.is_empty()).then(|| ForkMessage {
                    entry_id: e.id.clone(),
                    text,
                })
            })
            .collect()
    }

    /// Pi's `createBranchedSession`: a new session file beside this one holding only the path
    /// from the root to `leaf_id` (each line copied verbatim), the labels on that path
    /// re-created after it, and a header whose `parentSession` is this file. The new file is
    /// written and locked now; this one stays open.
    pub fn fork_from(&self, leaf_id: &str) -> Result<SessionFile, SessionError> {
        self.require(leaf_id)?;
        let path = branch_path(&self.entries, &self.index, leaf_id);
        // Lines are copied verbatim from the file; a session not on disk writes its entries.
        let bytes = match self.path().filter(|_| self.is_on_disk()) {
            Some(file) => Some(std::fs::read(file).map_err(|e| SessionError::io(file, e))?),
            None => None,
        };
        let mut body = Vec::new();
        let mut kept = HashSet::new();
        let mut last = None;
        for entry in path {
            if matches!(entry.kind, EntryKind::Label { .. }) {
                continue;
            }
            match &bytes {
                Some(bytes) => {
                    let span = &self.spans[self.index[&entry.id]];
                    let line = bytes
                        .get(span.start as usize..span.end as usize)
                        .ok_or_else(|| {
                            SessionError::io(self.path().unwrap_or(Path::new("")), truncated())
                        })?;
                    push_line(&mut body, line);
                }
                None => body.extend_from_slice(&entry.to_line()?),
            }
            kept.insert(entry.id.clone());
            last = Some(entry.id.clone());
        }
        let mut labels: Vec<_> = self
            .labels()
            .into_iter()
            .filter(|(target, _)| kept.contains(target))
            .collect();
        labels.sort_by(|a, b| (&a.1.1, &a.0).cmp(&(&b.1.1, &b.0)));
        let mut taken: HashMap<String, ()> = kept.into_iter().map(|id| (id, ())).collect();
        for (target_id, (label, timestamp)) in labels {
            let entry = SessionEntry {
                id: new_entry_id(&taken),
                parent_id: last.take(),
                timestamp,
                kind: EntryKind::Label {
                    target_id,
                    label: Some(label),
                },
                extra: serde_json::Map::new(),
            };
            taken.insert(entry.id.clone(), ());
            last = Some(entry.id.clone());
            body.extend_from_slice(&entry.to_line()?);
        }
        let file = self.path().ok_or(SessionError::InMemory)?;
        let dir = file.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(|e| SessionError::io(dir, e))?;
        let parent = Some(file.to_string_lossy().into_owned());
        let (file, _) = write_new(dir, &self.header.cwd, parent, &body)?;
        Ok(file)
    }

    /// Pi's `forkFrom` (`--fork`): copies every entry of another session file into a new
    /// session in `dir` for `cwd`, with a new id and `parentSession` = `source`. The source is
    /// only read (it may be open in another process). Warnings are the source's.
    pub fn fork_file(
        source: &Path,
        dir: &Path,
        cwd: &str,
    ) -> Result<(SessionFile, Vec<OpenWarning>), SessionError> {
        let bytes = std::fs::read(source).map_err(|e| SessionError::io(source, e))?;
        let bytes = Buffer::new(bytes);
        let loaded = load(&bytes).map_err(|_| SessionError::NotASessionFile {
            path: source.to_path_buf(),
        })?;
        if loaded.header.is_none() {
            return Err(SessionError::NotASessionFile {
                path: source.to_path_buf(),
            });
        }
        let from: &[u8] = loaded.rewritten.as_deref().unwrap_or(&bytes);
        let mut body = Vec::with_capacity(from.len());
        for span in &loaded.spans {
            push_line(&mut body, &from[span.clone()]);
        }
        std::fs::create_dir_all(dir).map_err(|e| SessionError::io(dir, e))?;
        let parent = Some(source.to_string_lossy().into_owned());
        let (file, _) = write_new(dir, cwd, parent, &body)?;
        Ok((file, loaded.warnings))
    }
}

fn push_line(body: &mut Vec<u8>, line: &[u8]) {
    body.extend_from_slice(line);
    if !line.ends_with(b"\n") {
        body.push(b'\n');
    }
}

fn truncated() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::UnexpectedEof,
        "the file is shorter than the entries read from it",
    )
}

/// Creates `<dir>/<timestamp>_<uuid>.jsonl` holding a header and `body`, then opens it as
/// usual (locked, parsed).
fn write_new(
    dir: &Path,
    cwd: &str,
    parent_session: Option<String>,
    body: &[u8],
) -> Result<(SessionFile, Vec<OpenWarning>), SessionError> {
    let id = new_session_id();
    let timestamp = iso_timestamp(SystemTime::now());
    let path = dir.join(format!("{}_{id}.jsonl", file_timestamp(&timestamp)));
    let header = SessionHeader::new(id, timestamp, cwd.to_owned(), parent_session);
    let mut contents = serde_json::to_vec(&header)?;
    contents.push(b'\n');
    contents.extend_from_slice(body);
    let write = || -> std::io::Result<()> {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)?;
        f.write_all(&contents)?;
        f.sync_all()
    };
    write().map_err(|e| SessionError::io(&path, e))?;
    SessionFile::open(&path)
}
