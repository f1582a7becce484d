//! The RPC `bash` command (pi-reference §6.8): a shell command the *user* runs, outside the
//! agent's tools. Its result is answered to the client and kept as a `bashExecution` message,
//! which the model sees as a user message from the next prompt on.

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use rho_agent::{AgentMessage, ContextHooks, CustomMessage, HookError};
use rho_ai::Message;
use rho_host::tools::bash::ShellEnv;
use rho_host::tools::truncate::{DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, truncate_tail};
use serde_json::{Map, Value};
use tokio::sync::watch;

/// The role of the message a user shell command leaves in the transcript.
pub const BASH_EXECUTION_ROLE: &str = "bashExecution";

/// What a user shell command produced (Pi's `BashResult`).
#[derive(Clone, Debug, PartialEq)]
pub struct BashResult {
    /// The merged stdout and stderr, its tail if it was too long.
    pub output: String,
    /// The exit code; `None` when cancelled or killed by a signal.
    pub exit_code: Option<i32>,
    /// Whether `abort_bash` stopped it.
    pub cancelled: bool,
    /// Whether `output` is only the tail.
    pub truncated: bool,
    /// Where the full output was saved when it was truncated.
    pub full_output_path: Option<PathBuf>,
}

impl BashResult {
    /// The response data: `{output, exitCode?, cancelled, truncated, fullOutputPath?}`.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("output".into(), Value::from(self.output.as_str()));
        if let Some(code) = self.exit_code {
            object.insert("exitCode".into(), Value::from(code));
        }
        object.insert("cancelled".into(), Value::Bool(self.cancelled));
        object.insert("truncated".into(), Value::Bool(self.truncated));
        if let Some(path) = &self.full_output_path {
            object.insert(
                "fullOutputPath".into(),
                Value::from(path.to_string_lossy().as_ref()),
            );
        }
        Value::Object(object)
    }

    /// The `bashExecution` message recording this result for `command`; `excludeFromContext`
    /// follows the timestamp when the request sent it (Pi 1.6).
    pub fn to_message(
        &self,
        command: &str,
        timestamp: i64,
        exclude_from_context: Option<bool>,
    ) -> AgentMessage {
        let mut fields = Map::new();
        fields.insert("command".into(), Value::from(command));
        if let Value::Object(result) = self.to_json() {
            fields.extend(result);
        }
        fields.insert("timestamp".into(), Value::from(timestamp));
        if let Some(exclude) = exclude_from_context {
            fields.insert("excludeFromContext".into(), Value::Bool(exclude));
        }
        AgentMessage::Custom(Arc::new(CustomMessage {
            role: BASH_EXECUTION_ROLE.into(),
            fields,
        }))
    }
}

/// Cancels a running user command.
#[derive(Clone)]
pub struct BashCancel(Arc<watch::Sender<bool>>);

impl BashCancel {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        BashCancel(Arc::new(watch::channel(false).0))
    }

    /// Stops the command (its whole process group).
    pub fn cancel(&self) {
        self.0.send_replace(true);
    }

    async fn cancelled(&self) {
        let mut receiver = self.0.subscribe();
        let _ = receiver.wait_for(|cancelled| *cancelled).await;
    }
}

/// Runs `command` with the shell in `cwd`, stdout and stderr merged on one pipe, as the leader
/// of its own process group so that cancelling kills everything it started. Each chunk of
/// output goes to `on_output` as it arrives (whole characters, `\r` removed).
pub async fn run(
    command: &str,
    cwd: &Path,
    cancel: &BashCancel,
    on_output: impl FnMut(&str) + Send + 'static,
) -> std::io::Result<BashResult> {
    let (mut reader, writer) = std::io::pipe()?;
    let mut shell = Command::new(shell_program());
    shell
        .arg("-c")
        .arg(command)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(writer.try_clone()?)
        .stderr(writer)
        .process_group(0);
    // As Pi 1.6: a user's command describes no session (no `PI_SESSION_*` of rho's own
    // environment) and knows it runs under an agent.
    ShellEnv::plain().apply_to(&mut shell);
    let mut child = shell.spawn()?;
    // Our copies of the pipe's write end must go, or the reader never sees the end.
    drop(shell);
    let pgid = i32::try_from(child.id()).ok();
    let collect = tokio::task::spawn_blocking(move || {
        let mut bytes = Vec::new();
        let read = read_streaming(&mut reader, &mut bytes, on_output);
        let status = child.wait();
        (bytes, read.and(status))
    });
    let mut collect = std::pin::pin!(collect);
    let (finished, cancelled) = tokio::select! {
        joined = &mut collect => (Some(joined), false),
        () = cancel.cancelled() => (None, true),
    };
    if cancelled && let Some(pgid) = pgid {
        // SAFETY: `kill` has no memory-safety preconditions; the negative pid addresses the
        // process group this command leads, which holds only processes it started.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
    let joined = match finished {
        Some(joined) => joined,
        None => collect.await,
    };
    let (bytes, status) = joined.map_err(std::io::Error::other)?;
    let status = status?;
    let text = String::from_utf8_lossy(&bytes).replace('\r', "");
    let tail = truncate_tail(&text, DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES);
    let full_output_path = if tail.truncated {
        Some(save_full_output(&text)?)
    } else {
        None
    };
    Ok(BashResult {
        output: if tail.truncated { tail.content } else { text },
        exit_code: if cancelled { None } else { status.code() },
        cancelled,
        truncated: tail.truncated,
        full_output_path,
    })
}

/// Reads `reader` to its end into `bytes`, handing each chunk's new whole characters to
/// `on_output` (a character split between two reads waits for its rest).
fn read_streaming(
    reader: &mut impl std::io::Read,
    bytes: &mut Vec<u8>,
    mut on_output: impl FnMut(&str),
) -> std::io::Result<()> {
    let mut chunk = [0u8; 8192];
    let mut sent = 0;
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        bytes.extend_from_slice(&chunk[..n]);
        let pending = &bytes[sent..];
        let whole = match std::str::from_utf8(pending) {
            Ok(_) => pending.len(),
            // An incomplete character at the end waits; invalid bytes are sent replaced.
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => pending.len(),
        };
        if whole > 0 {
            let text = String::from_utf8_lossy(&pending[..whole]).replace('\r', "");
            if !text.is_empty() {
                on_output(&text);
            }
            sent += whole;
        }
    }
    if sent < bytes.len() {
        on_output(&String::from_utf8_lossy(&bytes[sent..]));
    }
    Ok(())
}

/// Pi's shell choice: `/bin/bash`, else `bash` on `PATH`, else `sh`.
fn shell_program() -> &'static str {
    if Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else if std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join("bash").exists()))
    {
        "bash"
    } else {
        "sh"
    }
}

/// Saves a user command's whole output where the `bash` tool saves its own: a private file
/// in rho's output directory, at most 64 MiB of it.
fn save_full_output(text: &str) -> std::io::Result<PathBuf> {
    use std::io::Write;
    let (path, mut file) = rho_gate::create_output_file("rho-bash", ".log")?;
    let cap = usize::try_from(rho_gate::MAX_OUTPUT_FILE_BYTES).unwrap_or(usize::MAX);
    let mut end = text.len().min(cap);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    file.write_all(&text.as_bytes()[..end])?;
    Ok(path)
}

/// `convertToLlm` of the RPC session: Pi's (`rho_host::compaction::convert_to_llm`), so a
/// `bashExecution` reaches the model as Pi's "Ran `cmd`" user text and other unknown roles are
/// dropped.
pub struct UserBashContext;

impl ContextHooks for UserBashContext {
    fn convert_to_llm(&self, messages: &[AgentMessage]) -> Result<Vec<Message>, HookError> {
        Ok(rho_host::compaction::convert_to_llm(messages))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use rho_ai::{ContentBlock, UserContent};
    use serde_json::json;

    use super::*;

    fn bash_message(fields: Value) -> AgentMessage {
        let Value::Object(fields) = fields else {
            unreachable!()
        };
        AgentMessage::Custom(Arc::new(CustomMessage {
            role: BASH_EXECUTION_ROLE.into(),
            fields,
        }))
    }

    fn llm_text(message: &AgentMessage) -> String {
        let converted = UserBashContext
            .convert_to_llm(std::slice::from_ref(message))
            .unwrap();
        let [Message::User(user)] = converted.as_slice() else {
            panic!("expected one user message, got {converted:?}");
        };
        let UserContent::Blocks(blocks) = &user.content else {
            panic!("expected blocks");
        };
        blocks.iter().filter_map(ContentBlock::as_text).collect()
    }

    #[test]
    fn the_model_sees_a_user_command_as_pis_ran_text_with_its_exit_code() {
        let message = bash_message(json!({
            "command": "make", "output": "boom", "exitCode": 2, "cancelled": false,
            "truncated": false, "timestamp": 7
        }));
        assert_eq!(
            llm_text(&message),
            "Ran `make`\n```\nboom\n```\n\nCommand exited with code 2"
        );
    }

    #[test]
    fn a_cancelled_silent_command_says_no_output_and_cancelled() {
        let message = bash_message(json!({
            "command": "sleep 9", "output": "", "cancelled": true, "truncated": false,
            "timestamp": 7
        }));
        assert_eq!(
            llm_text(&message),
            "Ran `sleep 9`\n(no output)\n\n(command cancelled)"
        );
    }

    #[test]
    fn streamed_output_keeps_characters_whole_across_reads_and_drops_carriage_returns() {
        // A reader that returns one byte at a time splits "é" (two bytes) across reads.
        struct OneByte(std::io::Cursor<Vec<u8>>);
        impl std::io::Read for OneByte {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let one = buf.len().min(1);
                self.0.read(&mut buf[..one])
            }
        }
        let mut reader = OneByte(std::io::Cursor::new("é\r\nx".as_bytes().to_vec()));
        let mut bytes = Vec::new();
        let mut deltas = Vec::new();
        read_streaming(&mut reader, &mut bytes, |d| deltas.push(d.to_owned())).unwrap();
        assert_eq!(deltas, ["é", "\n", "x"]);
        assert_eq!(bytes, "é\r\nx".as_bytes());
    }

    #[test]
    fn other_custom_roles_are_not_sent_to_the_model() {
        let other = AgentMessage::Custom(Arc::new(CustomMessage {
            role: "note".into(),
            fields: Map::new(),
        }));
        assert_eq!(
            UserBashContext.convert_to_llm(&[other]).unwrap(),
            Vec::new()
        );
    }
}
