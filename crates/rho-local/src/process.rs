//! The model process: `rho-llama` started on the first call, its calls told apart by id.
//!
//! rho writes each call as one line to the process's stdin and a reader thread hands the reply
//! lines to the calls' streams. When the process ends (a llama.cpp assertion aborts it, it is
//! killed, or it writes something that is not a reply), every call still open ends in one
//! `error` event naming how it ended, with the last lines it wrote to stderr; the next call
//! starts a new process.

use rho_stdx::sync::lock;
use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use rho_ai::{AssistantMessage, ErrorKind, StreamSender};
use tokio_util::sync::CancellationToken;

use crate::wire::{Call, Reply, Request};

/// How much of the process's stderr is kept for the message when it dies.
const STDERR_TAIL: usize = 4096;

/// One call waiting for its events.
struct Pending {
    sender: StreamSender,
    /// What the call has streamed so far: the message it fails with if the process dies.
    last: Arc<AssistantMessage>,
    /// Cancelled once the call has ended, which ends its cancel watcher.
    done: CancellationToken,
}

/// The calls in flight, and whether the process is gone (then no call may be added).
#[derive(Default)]
struct Calls {
    pending: HashMap<u64, Pending>,
    gone: bool,
}

/// A running model process.
pub(crate) struct ModelProcess {
    program: PathBuf,
    /// `None` once the process is gone.
    stdin: Mutex<Option<ChildStdin>>,
    calls: Mutex<Calls>,
    next_id: AtomicU64,
}

impl ModelProcess {
    /// Starts `program` with its reader threads.
    pub fn spawn(program: &Path) -> io::Result<Arc<ModelProcess>> {
        let mut command = Command::new(program);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // A group of its own: Ctrl+C in the terminal is rho's to handle (an abort, reported as
        // such), not a signal that kills the model under it. The process still ends with rho,
        // when its input closes.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn()?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(io::Error::other("the process's pipes were not set up"));
        };
        let tail = Arc::new(Mutex::new(Vec::new()));
        let stderr_reader = {
            let tail = Arc::clone(&tail);
            std::thread::Builder::new()
                .name("rho-llama-stderr".to_owned())
                .spawn(move || keep_tail(stderr, &tail))
        };
        let process = Arc::new(ModelProcess {
            program: program.to_path_buf(),
            stdin: Mutex::new(Some(stdin)),
            calls: Mutex::default(),
            next_id: AtomicU64::new(1),
        });
        let reader = {
            let process = Arc::clone(&process);
            let ended = Ended {
                child,
                stderr_reader: stderr_reader.ok(),
                tail,
            };
            std::thread::Builder::new()
                .name("rho-llama-reader".to_owned())
                .spawn(move || process.read_replies(stdout, ended))
        };
        if let Err(error) = reader {
            // The closure (and with it the child) is gone: the process sees its stdin close.
            process.close_stdin();
            return Err(error);
        }
        Ok(process)
    }

    /// The program this process runs.
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// Whether calls can still be sent to it.
    pub fn is_running(&self) -> bool {
        !lock(&self.calls).gone
    }

    /// Sends `call` (its id is assigned here); its events go to `sender`. `cancel` stops it.
    pub fn submit(
        self: &Arc<Self>,
        mut call: Box<Call>,
        sender: StreamSender,
        template: AssistantMessage,
        cancel: CancellationToken,
    ) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        call.id = id;
        let done = CancellationToken::new();
        let mut pending = Pending {
            sender,
            last: Arc::new(template),
            done: done.clone(),
        };
        {
            let mut calls = lock(&self.calls);
            if calls.gone {
                drop(calls);
                let text = format!("the local model process {} ended", self.program.display());
                return fail_pending(&mut pending, text, ErrorKind::Provider);
            }
            calls.pending.insert(id, pending);
        }
        if let Err(error) = self.send(&Request::Call(call)) {
            // The reader fails the call too once it sees the process end; whoever takes it
            // from the table first reports it.
            if let Some(mut pending) = lock(&self.calls).pending.remove(&id) {
                let text = format!(
                    "cannot send the call to the local model process {}: {error}",
                    self.program.display()
                );
                fail_pending(&mut pending, text, ErrorKind::Provider);
            }
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let process = Arc::clone(self);
            runtime.spawn(async move {
                tokio::select! {
                    () = cancel.cancelled() => process.cancel(id),
                    () = done.cancelled() => {}
                }
            });
        }
    }

    /// Asks the process to stop the call `id`; it then ends `aborted`.
    fn cancel(&self, id: u64) {
        // A process that is gone has failed the call already.
        let _ = self.send(&Request::Cancel { id });
    }

    fn send(&self, request: &Request) -> io::Result<()> {
        let mut line = serde_json::to_string(request).map_err(io::Error::other)?;
        line.push('\n');
        match lock(&self.stdin).as_mut() {
            Some(stdin) => stdin.write_all(line.as_bytes()),
            None => Err(io::Error::from(io::ErrorKind::BrokenPipe)),
        }
    }

    fn close_stdin(&self) {
        lock(&self.stdin).take();
    }

    /// The reader thread: replies to their calls until the process's stdout ends.
    fn read_replies(&self, stdout: ChildStdout, mut ended: Ended) {
        let mut lines = BufReader::new(stdout);
        let mut line = String::new();
        let broken = loop {
            line.clear();
            match lines.read_line(&mut line) {
                Ok(0) => break None,
                Ok(_) => match serde_json::from_str::<Reply>(&line) {
                    Ok(reply) => self.deliver(reply),
                    Err(error) => {
                        break Some(format!("wrote a line that is not a reply ({error})"));
                    }
                },
                Err(error) => break Some(format!("cannot be read ({error})")),
            }
        };
        if broken.is_some() {
            let _ = ended.child.kill();
        }
        // Nothing more is sent; a process still running sees the end of its input and leaves.
        self.close_stdin();
        let status = ended.child.wait();
        if let Some(stderr_reader) = ended.stderr_reader.take() {
            let _ = stderr_reader.join();
        }
        let text = self.describe_end(broken, status, &lock(&ended.tail));
        let pending = {
            let mut calls = lock(&self.calls);
            calls.gone = true;
            std::mem::take(&mut calls.pending)
        };
        for (_, mut call) in pending {
            fail_pending(&mut call, text.clone(), ErrorKind::Provider);
        }
    }

    fn deliver(&self, reply: Reply) {
        let id = reply.id;
        let event = reply.into_event();
        let mut calls = lock(&self.calls);
        if event.terminal_message().is_some() {
            if let Some(mut call) = calls.pending.remove(&id) {
                drop(calls);
                call.sender.push(event);
                call.done.cancel();
            }
            return;
        }
        let Some(call) = calls.pending.get_mut(&id) else {
            return;
        };
        if let Some(partial) = event.partial() {
            call.last = Arc::clone(partial);
        }
        call.sender.push(event);
        let abandoned = call.sender.is_closed();
        drop(calls);
        if abandoned {
            // Nobody reads the stream any more: stop generating for it.
            self.cancel(id);
        }
    }

    fn describe_end(
        &self,
        broken: Option<String>,
        status: io::Result<ExitStatus>,
        tail: &[u8],
    ) -> String {
        let how = match (broken, status) {
            (Some(broken), _) => broken,
            (None, Ok(status)) => format!("ended ({status})"),
            (None, Err(error)) => format!("ended (cannot wait for it: {error})"),
        };
        let tail = String::from_utf8_lossy(tail);
        let last_lines: Vec<&str> = tail.lines().filter(|l| !l.trim().is_empty()).collect();
        let said = last_lines[last_lines.len().saturating_sub(3)..].join(" | ");
        let mut text = format!("the local model process {} {how}", self.program.display());
        if !said.is_empty() {
            text.push_str(": ");
            text.push_str(said.trim());
        }
        text
    }
}

/// What the reader needs once the output ends: the child to wait for and its stderr.
struct Ended {
    child: Child,
    stderr_reader: Option<JoinHandle<()>>,
    tail: Arc<Mutex<Vec<u8>>>,
}

/// Reads `stderr` to its end, keeping the last [`STDERR_TAIL`] bytes.
fn keep_tail(mut stderr: impl Read, tail: &Mutex<Vec<u8>>) {
    let mut buffer = [0u8; 4096];
    while let Ok(n @ 1..) = stderr.read(&mut buffer) {
        let mut tail = lock(tail);
        tail.extend_from_slice(&buffer[..n]);
        let excess = tail.len().saturating_sub(STDERR_TAIL);
        tail.drain(..excess);
    }
}

fn fail_pending(pending: &mut Pending, text: String, kind: ErrorKind) {
    let message = AssistantMessage::clone(&pending.last);
    pending.sender.fail(message, kind, text);
    pending.done.cancel();
}
