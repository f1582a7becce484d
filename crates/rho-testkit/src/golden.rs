//! Golden request bodies: representative transcripts that every provider's request builder is
//! run on, and [`check`], which compares the bytes built with a committed fixture file.
//!
//! The fixtures pin the exact bytes sent (key order and number formatting included), so a
//! change to how a body is built (a `Value` tree, typed structs) cannot change what a provider
//! receives without a test failing. `RHO_BLESS=1 cargo test …` writes the files anew; review
//! the diff before committing it.

use std::path::Path;
use std::sync::Arc;

use rho_ai::{
    AssistantMessage, ContentBlock, Context, ImageContent, Message, Model, ProviderBlock,
    StopReason, TextContent, ThinkingContent, ToolCall, ToolResultMessage, ToolSpec, UserContent,
    UserMessage,
};
use serde_json::{Value, json};

/// Who wrote an assistant message: `(api, provider, model id)`.
pub type Author<'a> = (&'a str, &'a str, &'a str);

/// The signatures a provider puts on the blocks of its own messages.
#[derive(Clone, Debug, Default)]
pub struct Signatures {
    /// On signed thinking blocks.
    pub thinking: Option<String>,
    /// On text blocks.
    pub text: Option<String>,
    /// On tool calls.
    pub tool_call: Option<String>,
    /// On redacted thinking (the redacted payload).
    pub redacted: Option<String>,
}

/// The author triple of `model`.
pub fn author(model: &Model) -> Author<'_> {
    (&model.api, &model.provider, &model.id)
}

/// A user message holding one string.
pub fn user_text(text: &str) -> Message {
    Message::User(Arc::new(UserMessage {
        content: UserContent::Text(text.into()),
        timestamp: 1,
    }))
}

/// A user message of blocks.
pub fn user_blocks(blocks: Vec<ContentBlock>) -> Message {
    Message::User(Arc::new(UserMessage {
        content: UserContent::Blocks(blocks),
        timestamp: 1,
    }))
}

/// An assistant message by `author` that ended with `stop`.
pub fn assistant(author: Author<'_>, content: Vec<ContentBlock>, stop: StopReason) -> Message {
    assistant_with(author, content, stop, Vec::new())
}

/// An assistant message that also holds provider-only blocks.
pub fn assistant_with(
    author: Author<'_>,
    content: Vec<ContentBlock>,
    stop: StopReason,
    provider_blocks: Vec<ProviderBlock>,
) -> Message {
    let (api, provider, model) = author;
    let mut message = AssistantMessage::empty(api, provider, model);
    message.content = content;
    message.stop_reason = stop;
    message.provider_blocks = provider_blocks;
    if stop.is_failure() {
        message.error_message = Some("failed".into());
    }
    message.timestamp = 1;
    Message::Assistant(Arc::new(message))
}

/// A tool result for call `id`.
pub fn tool_result(id: &str, name: &str, content: Vec<ContentBlock>, is_error: bool) -> Message {
    Message::ToolResult(Arc::new(ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: name.into(),
        content,
        details: Some(json!({"never": "sent"})),
        is_error,
        duration_ms: Some(1),
        usage: None,
        timestamp: 1,
    }))
}

/// A text block.
pub fn text(text: &str) -> ContentBlock {
    ContentBlock::text(text)
}

/// A text block with a signature.
pub fn signed_text(text: &str, signature: Option<&str>) -> ContentBlock {
    ContentBlock::Text(TextContent {
        text: text.into(),
        text_signature: signature.map(Into::into),
    })
}

/// A thinking block.
pub fn thinking(text: &str, signature: Option<&str>) -> ContentBlock {
    ContentBlock::Thinking(ThinkingContent {
        thinking: text.into(),
        thinking_signature: signature.map(Into::into),
        redacted: None,
    })
}

/// A redacted thinking block carrying `data` as its signature.
pub fn redacted(data: &str) -> ContentBlock {
    ContentBlock::Thinking(ThinkingContent {
        thinking: String::new(),
        thinking_signature: Some(data.into()),
        redacted: Some(true),
    })
}

/// A tool call.
pub fn call(id: &str, name: &str, arguments: Value, signature: Option<&str>) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        id: id.into(),
        name: name.into(),
        arguments,
        thought_signature: signature.map(Into::into),
    })
}

/// A small base64 image.
pub fn image(mime_type: &str) -> ContentBlock {
    ContentBlock::Image(ImageContent {
        data: "iVBORw0KGgoAAAANSUhEUg==".into(),
        mime_type: mime_type.into(),
    })
}

/// Two tools: `read` with a full schema, `ls` with neither properties nor `required`.
pub fn tools() -> Arc<[ToolSpec]> {
    Arc::from(vec![
        ToolSpec {
            name: "read".into(),
            description: "Read a file".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"},
                "limit": {"type": "integer"}}, "required": ["path"], "additionalProperties": false}),
        },
        ToolSpec {
            name: "ls".into(),
            description: "List a \"directory\"".into(),
            parameters: json!({"type": "object"}),
        },
    ])
}

/// A context of `messages` with a system prompt and [`tools`].
pub fn context(messages: Vec<Message>) -> Context {
    Context {
        system_prompt: Some("You are a careful assistant.\nBe brief.".into()),
        messages: Arc::new(messages),
        tools: tools(),
    }
}

/// A long conversation with `model` itself: plain and block user content, signed and unsigned
/// thinking, redacted thinking, tool calls and results (an error, images, an image-only result,
/// a call never answered), an aborted and a failed turn (both dropped), text that needs escaping,
/// and a last user message.
pub fn own_history(model: &Model, signatures: &Signatures) -> Vec<Message> {
    let me = author(model);
    let sig = |s: &Option<String>| s.clone();
    let thinking_sig = sig(&signatures.thinking);
    let text_sig = sig(&signatures.text);
    let call_sig = sig(&signatures.tool_call);
    let mut second_reply = vec![thinking("  ", None), thinking("An unsigned thought.", None)];
    if let Some(data) = &signatures.redacted {
        second_reply.push(redacted(data));
    }
    second_reply.extend([
        text(""),
        text("Reading the image."),
        call("call_4", "read", json!({"path": "pic.png"}), None),
    ]);
    vec![
        user_text("Hello there"),
        assistant(
            me,
            vec![
                thinking("Let me look at both files.", thinking_sig.as_deref()),
                signed_text("I will read two files.", text_sig.as_deref()),
                call(
                    "call_1",
                    "read",
                    json!({"path": "a.txt", "limit": 10}),
                    call_sig.as_deref(),
                ),
                call("call_2", "ls", json!({}), None),
            ],
            StopReason::ToolUse,
        ),
        tool_result(
            "call_1",
            "read",
            vec![text("line 1"), text("line 2")],
            false,
        ),
        tool_result("call_2", "ls", vec![text("ls: no such directory")], true),
        user_blocks(vec![
            text("Here is a picture"),
            image("image/png"),
            text("   "),
            text("What is it?"),
        ]),
        assistant(
            me,
            vec![text("Partial"), call("call_3", "read", json!({}), None)],
            StopReason::Aborted,
        ),
        assistant(me, vec![], StopReason::Error),
        user_text("Try again: \"quotes\", a tab\t, a newline\n, é, 😀, </script>, \u{7f}."),
        assistant(me, second_reply, StopReason::ToolUse),
        tool_result(
            "call_4",
            "read",
            vec![text("Read image file [image/png]"), image("image/png")],
            false,
        ),
        assistant(
            me,
            vec![
                call("call_5", "read", json!({"path": "b.jpg"}), None),
                call("call_6", "read", json!({"path": "c.txt"}), None),
            ],
            StopReason::ToolUse,
        ),
        tool_result("call_5", "read", vec![image("image/jpeg")], false),
        user_text("Thanks"),
        assistant(
            me,
            vec![signed_text("You're welcome.", text_sig.as_deref())],
            StopReason::Stop,
        ),
        user_blocks(vec![text("One more question.")]),
    ]
}

/// A conversation with other models, replayed to `model`: Anthropic, Chat Completions,
/// Responses (a `call|item` id), Gemini, a model of `model`'s own provider and API with another
/// id, and a local model with an over-long id full of characters no API accepts.
pub fn foreign_history(model: &Model) -> Vec<Message> {
    let long_id = format!("tool.call/{}|item:{}", "x".repeat(40), "y".repeat(40));
    vec![
        user_text("Compare providers."),
        assistant(
            ("anthropic-messages", "anthropic", "claude-sonnet-4-5"),
            vec![
                thinking("Claude thinks.", Some("EqQBCkYIBxgCKkD")),
                text("Claude reads."),
                call("toolu_01ABC", "read", json!({"path": "a"}), None),
            ],
            StopReason::ToolUse,
        ),
        tool_result("toolu_01ABC", "read", vec![text("contents of a")], false),
        assistant(
            ("openai-completions", "openai", "gpt-4o"),
            vec![
                thinking("GPT reasons.", Some("reasoning_content")),
                call("call_abc.def", "read", json!({"path": "b"}), None),
            ],
            StopReason::ToolUse,
        ),
        tool_result("call_abc.def", "read", vec![text("contents of b")], false),
        assistant(
            ("openai-responses", "openai", "gpt-5"),
            vec![
                thinking(
                    "A summary.",
                    Some(
                        r#"{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"enc"}"#,
                    ),
                ),
                signed_text(
                    "Responses reads.",
                    Some(r#"{"v":1,"id":"msg_1","phase":"commentary"}"#),
                ),
                call(
                    "call_xyz|fc_0123456789abcdef",
                    "read",
                    json!({"path": "c"}),
                    None,
                ),
            ],
            StopReason::ToolUse,
        ),
        tool_result(
            "call_xyz|fc_0123456789abcdef",
            "read",
            vec![text("contents of c")],
            false,
        ),
        assistant(
            ("google-generative-ai", "google", "gemini-2.5-pro"),
            vec![
                thinking("Gemini thought.", Some("c2lnbmF0dXJl")),
                call(
                    "read_1700000000_0",
                    "read",
                    json!({"path": "d"}),
                    Some("c2ln"),
                ),
            ],
            StopReason::ToolUse,
        ),
        tool_result(
            "read_1700000000_0",
            "read",
            vec![text("contents of d")],
            false,
        ),
        assistant(
            (&model.api, &model.provider, "a-sibling-model"),
            vec![
                thinking("Sibling thinks.", Some("c2libGluZw==")),
                signed_text("Sibling reads.", Some("msg_sibling")),
                call("call_sib|fc_sibling", "read", json!({"path": "e"}), None),
            ],
            StopReason::ToolUse,
        ),
        tool_result(
            "call_sib|fc_sibling",
            "read",
            vec![text("contents of e")],
            false,
        ),
        assistant(
            ("local", "local", "smollm2"),
            vec![call(&long_id, "read", json!({"path": "f"}), None)],
            StopReason::ToolUse,
        ),
        tool_result(&long_id, "read", vec![text("contents of f")], false),
        user_text("Continue on this model."),
    ]
}

/// Compares `body` with the fixture `<dir>/<name>.json`, byte for byte. With `RHO_BLESS` set,
/// writes the fixture instead.
pub fn check(dir: &Path, name: &str, body: &[u8]) {
    let path = dir.join(format!("{name}.json"));
    if std::env::var_os("RHO_BLESS").is_some() {
        if let Err(e) = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, body)) {
            panic!("write {}: {e}", path.display());
        }
        return;
    }
    let expected = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) => panic!("read {}: {e} (RHO_BLESS=1 writes it)", path.display()),
    };
    if body != expected {
        let at = body
            .iter()
            .zip(&expected)
            .position(|(a, b)| a != b)
            .unwrap_or(body.len().min(expected.len()));
        let around = |bytes: &[u8]| {
            let start = at.saturating_sub(80);
            let end = (at + 80).min(bytes.len());
            String::from_utf8_lossy(&bytes[start.min(end)..end]).into_owned()
        };
        panic!(
            "{name}: the body differs from {} at byte {at} (lengths {} and {})\n built: …{}…\n fixture: …{}…",
            path.display(),
            body.len(),
            expected.len(),
            around(body),
            around(&expected),
        );
    }
}
