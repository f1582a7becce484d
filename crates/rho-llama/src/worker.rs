//! The one thread every llama.cpp call runs on, for the life of the process.
//!
//! llama.cpp's CPU backend runs each graph on an OpenMP team, and libgomp gives every thread that
//! starts a parallel region a team of its own, kept alive after the region ends. libgomp also
//! counts the threads of all teams in the process: once that count exceeds the cores, every
//! barrier spins about a hundred times instead of ~300,000 before it sleeps on a futex. A token
//! passes a few hundred barriers, so each compute thread then sleeps and wakes at each of them
//! and the two take turns instead of working together. Calls on tokio's blocking pool landed on
//! whichever pool thread was free, so a second call made while the first thread was still
//! returning to the pool started a second team, and generation ran at ~0.4× llama.cpp's speed.
//! One long-lived thread owning all llama.cpp work keeps one team, so libgomp keeps spinning.
//!
//! Calls therefore run one at a time, in the order they were made; a call cancelled while it
//! waits ends as soon as its turn comes, without touching the model.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::mpsc::{Sender, channel};

use rho_ai::{ErrorInfo, ErrorKind, StopReason};
use rho_stdx::sync::lock;

use crate::generate::{Job, run};

/// The thread's name, as tools such as `top -H` show it.
const THREAD_NAME: &str = "rho-llama";

/// Where calls are sent; `None` until the first call starts the thread.
static QUEUE: Mutex<Option<Sender<Job>>> = Mutex::new(None);

/// Queues `job` for the llama.cpp thread, starting the thread on first use (or again, should it
/// ever have ended). A thread that cannot be started ends the call with an error event.
pub(crate) fn submit(job: Job) {
    let mut queue = lock(&QUEUE);
    let job = match queue.as_ref() {
        Some(sender) => match sender.send(job) {
            Ok(()) => return,
            Err(returned) => returned.0,
        },
        None => job,
    };
    // Not started yet, or gone: the receiving end was dropped with its thread.
    let (sender, receiver) = channel::<Job>();
    let spawned = std::thread::Builder::new()
        .name(THREAD_NAME.to_owned())
        .spawn(move || {
            for job in receiver {
                // A panic inside llama.cpp's bindings ends that call (its sender is dropped) but
                // not the thread, so later calls keep the one team.
                let _ = catch_unwind(AssertUnwindSafe(|| run(job)));
            }
        });
    match spawned {
        Ok(_) => {
            if let Err(returned) = sender.send(job) {
                fail_unstarted(returned.0, "the llama.cpp thread ended at once".to_owned());
                return;
            }
            *queue = Some(sender);
        }
        Err(error) => fail_unstarted(job, format!("cannot start the llama.cpp thread: {error}")),
    }
}

/// Ends a call that never reached the llama.cpp thread.
fn fail_unstarted(mut job: Job, reason: String) {
    job.emitter.fail(
        StopReason::Error,
        format!("local model failed: {reason}"),
        ErrorInfo::new(ErrorKind::Provider),
    );
}
