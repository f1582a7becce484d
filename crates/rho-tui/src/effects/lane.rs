//! Work for the binary's hosts, done beside the UI task: their calls read and write files and may
//! run commands (a `!command` key takes up to 10 s), so each runs on tokio's blocking pool while
//! the loop keeps drawing, reading keys and serving signals. A lane does its work one piece at a
//! time, in the order it was asked for, as the UI task did when it made the calls itself: a label
//! saved is in the rows listed after it, a setting written is what `/settings` reads back, and a
//! session switch starts only once what was asked before it is done.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;

use futures_util::FutureExt;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::finished::Finished;
use crate::app::Input;

/// Said when a host's call ended in a panic (a bug); the UI goes on.
const PANICKED: &str = "The command failed unexpectedly";

/// A blocking call and what it answers.
type Call = Box<dyn FnOnce() -> Option<Input> + Send>;

/// Work that runs on its own task once its turn comes (a session switch).
type Spawned = Pin<Box<dyn Future<Output = Finished> + Send>>;

enum Job {
    Call(Call),
    Spawn(Spawned),
}

/// An ordered queue of host work; answers come back on the channel given to [`Lane::start`].
pub(super) struct Lane {
    jobs: mpsc::UnboundedSender<Job>,
    worker: JoinHandle<()>,
}

impl Lane {
    /// Starts the lane's task (on the current runtime); answers go to `done`.
    pub(super) fn start(done: mpsc::UnboundedSender<Finished>) -> Lane {
        let (jobs, mut queue) = mpsc::unbounded_channel::<Job>();
        let worker = tokio::spawn(async move {
            while let Some(job) = queue.recv().await {
                match job {
                    Job::Call(call) => {
                        let answer = tokio::task::spawn_blocking(call)
                            .await
                            .unwrap_or_else(|_| Some(Input::Failed(PANICKED.to_owned())));
                        // Nobody listens once the UI has left; the work still gets done.
                        if let Some(input) = answer {
                            let _ = done.send(Finished::input(input));
                        }
                    }
                    Job::Spawn(work) => {
                        let done = done.clone();
                        tokio::spawn(async move {
                            let finished = AssertUnwindSafe(work).catch_unwind().await;
                            let finished = finished.unwrap_or_else(|_| {
                                Finished::input(Input::Failed(PANICKED.to_owned()))
                            });
                            let _ = done.send(finished);
                        });
                    }
                }
            }
        });
        Lane { jobs, worker }
    }

    /// Runs `call` on the blocking pool once the work asked before it is done; its answer, if
    /// any, comes back as an input.
    pub(super) fn call(&self, call: impl FnOnce() -> Option<Input> + Send + 'static) {
        let _ = self.jobs.send(Job::Call(Box::new(call)));
    }

    /// Starts `work` on a task of its own once the work asked before it is done; the work asked
    /// after it does not wait for it.
    pub(super) fn spawn(&self, work: impl Future<Output = Finished> + Send + 'static) {
        let _ = self.jobs.send(Job::Spawn(Box::pin(work)));
    }

    /// Waits until every call asked for is done (work spawned is not waited for): at exit, so
    /// that a setting or a session entry asked for is written before rho ends.
    pub(super) async fn finish(self) {
        let Lane { jobs, worker } = self;
        drop(jobs);
        let _ = worker.await;
    }
}
