//! The model process's loop: calls read from its input, their events written to its output, in
//! the line protocol of `rho_local::wire`.

use rho_stdx::sync::lock;
use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};

use rho_ai::{AssistantMessageEventStream, Context};
use rho_local::wire::{Call, Reply, Request};
use tokio_util::sync::CancellationToken;

use crate::provider::start;

/// The cancel tokens of the calls not yet ended.
type Tokens = Arc<Mutex<HashMap<u64, CancellationToken>>>;

/// Answers the requests read from `input` on `output` until `input` ends; then every call still
/// open is cancelled and its end written before returning. A line that is not a request is
/// reported on stderr and skipped. Fails only when `input` cannot be read.
pub fn serve(input: impl BufRead, output: impl Write + Send + 'static) -> io::Result<()> {
    let tokens: Tokens = Arc::default();
    let (streams, queued) = channel::<(u64, AssistantMessageEventStream)>();
    let writer = {
        let tokens = Arc::clone(&tokens);
        std::thread::Builder::new()
            .name("rho-llama-writer".to_owned())
            .spawn(move || write_replies(&queued, output, &tokens))?
    };
    let mut result = Ok(());
    for line in input.lines() {
        let line = match line {
            Ok(line) => line,
            Err(error) => {
                result = Err(error);
                break;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Request>(&line) {
            Ok(Request::Call(call)) => {
                let id = call.id;
                let cancel = CancellationToken::new();
                lock(&tokens).insert(id, cancel.clone());
                // The writer drains streams in order; calls run in order on one thread too.
                if streams.send((id, run(call, cancel))).is_err() {
                    break;
                }
            }
            Ok(Request::Cancel { id }) => {
                if let Some(cancel) = lock(&tokens).get(&id) {
                    cancel.cancel();
                }
            }
            Err(error) => eprintln!("rho-llama: skipped a line that is not a request: {error}"),
        }
    }
    // rho is gone or done: stop whatever still runs, and let the writer finish.
    for cancel in lock(&tokens).values() {
        cancel.cancel();
    }
    drop(streams);
    let _ = writer.join();
    result
}

/// Starts one call on the llama.cpp thread.
fn run(call: Box<Call>, cancel: CancellationToken) -> AssistantMessageEventStream {
    let Call {
        model,
        system_prompt,
        messages,
        tools,
        context_window,
        max_tokens,
        temperature,
        ..
    } = *call;
    let context = Context {
        system_prompt: system_prompt.map(Arc::from),
        messages: Arc::new(messages),
        tools: Arc::from(tools),
    };
    start(
        &model,
        context,
        context_window,
        max_tokens,
        temperature,
        cancel,
    )
}

/// The writer thread: each call's events as reply lines, call after call. Once `output` fails
/// (rho went away) every call is cancelled and nothing more is written.
fn write_replies(
    queued: &Receiver<(u64, AssistantMessageEventStream)>,
    mut output: impl Write,
    tokens: &Tokens,
) {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread().build() else {
        eprintln!("rho-llama: cannot start the writer's runtime");
        return;
    };
    let mut writable = true;
    for (id, mut stream) in queued {
        while let Some(event) = runtime.block_on(stream.next()) {
            if !writable {
                continue;
            }
            let written = serde_json::to_string(&Reply::new(id, event))
                .map_err(io::Error::other)
                .and_then(|mut line| {
                    line.push('\n');
                    output.write_all(line.as_bytes())?;
                    output.flush()
                });
            if written.is_err() {
                writable = false;
                for cancel in lock(tokens).values() {
                    cancel.cancel();
                }
            }
        }
        lock(tokens).remove(&id);
    }
}
