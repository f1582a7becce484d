//! Every local model call runs on one long-lived thread, so llama.cpp keeps one OpenMP team
//! (several teams in one process make libgomp stop spinning at barriers, and generation slows to
//! less than half). Real model, sharing the real-model tests' lock and installed file.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use rho_ai::{
    AssistantMessage, AssistantMessageEvent as E, Context, ErrorKind, Message, Provider,
    StopReason, StreamOptions, Usage, UserMessage,
};
use rho_llama::LlamaProvider;
use rho_local::local_model;

use crate::real_model::{ONE_AT_A_TIME, installed_model};

fn prompt(text: &str) -> Context {
    Context {
        system_prompt: Some("You are a helpful assistant.".into()),
        messages: Arc::new(vec![Message::User(Arc::new(UserMessage::text(text)))]),
        tools: Arc::new([]),
    }
}

/// The call's events by kind, and its final message.
async fn call(text: &str, options: StreamOptions) -> (Vec<&'static str>, AssistantMessage) {
    let mut stream =
        LlamaProvider::new().stream(&local_model(&installed_model()), prompt(text), options);
    let mut kinds = Vec::new();
    while let Some(event) = stream.next().await {
        kinds.push(match event {
            E::Start { .. } => "start",
            E::TextStart { .. } => "text_start",
            E::TextDelta { .. } => "text_delta",
            E::TextEnd { .. } => "text_end",
            E::Done { .. } => "done",
            E::Error { .. } => "error",
            _ => "other",
        });
    }
    (kinds, stream.take_result().unwrap())
}

/// Threads of this process with `name` (Linux names them in /proc).
#[cfg(target_os = "linux")]
fn threads_named(name: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter(|task| {
            let comm = std::fs::read_to_string(task.as_ref().unwrap().path().join("comm"));
            comm.is_ok_and(|comm| comm.trim_end() == name)
        })
        .count()
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_all_finish_and_llama_cpp_keeps_one_thread_team() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let options = || StreamOptions {
        max_tokens: Some(4),
        ..Default::default()
    };
    // Made at once from several runtime threads: before, each landed on its own blocking
    // thread and started its own OpenMP team.
    let calls: Vec<_> = ["Say hi.", "Name a colour.", "Count to three."]
        .into_iter()
        .map(|text| tokio::spawn(async move { call(text, options()).await }))
        .collect();
    for handle in calls {
        let (kinds, message) = handle.await.unwrap();
        assert_eq!(kinds.first(), Some(&"start"), "{kinds:?}");
        assert_eq!(kinds.last(), Some(&"done"), "{kinds:?}");
        assert!(matches!(
            message.stop_reason,
            StopReason::Length | StopReason::Stop
        ));
    }
    // The dedicated thread and the OpenMP workers it started (which inherit its name): one
    // team of the context's thread count, whatever thread made the calls.
    let team = std::thread::available_parallelism().map_or(2, |n| n.get());
    assert_eq!(threads_named("rho-llama"), team);
    let (kinds, _) = call("Say hi.", options()).await;
    assert_eq!(kinds.last(), Some(&"done"));
    assert_eq!(threads_named("rho-llama"), team);
}

#[tokio::test]
async fn a_call_cancelled_before_its_turn_ends_aborted_without_reading_the_prompt() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let options = StreamOptions::default();
    options.cancel.cancel();
    let (kinds, message) = call("Write a long story.", options).await;
    assert_eq!(kinds, vec!["error"]);
    assert_eq!(message.stop_reason, StopReason::Aborted);
    assert_eq!(
        message.error_message.as_deref(),
        Some("Request was aborted")
    );
    assert_eq!(message.error_info.unwrap().kind, ErrorKind::Aborted);
    // Nothing was read or generated: no tokens, nothing to pay.
    let Usage {
        input,
        output,
        total_tokens,
        ..
    } = message.usage;
    assert_eq!((input, output, total_tokens), (0, 0, 0));
    assert_eq!(message.usage.cost.total, 0.0);
}
