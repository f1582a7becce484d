//! The conversation as chat turns for the model's own template (ChatML for SmolLM2): the system
//! prompt with the tools described in the Hermes/Qwen `<tools>` convention, user and assistant
//! turns, and tool results as `tool` turns.

use std::fmt::Write as _;

use rho_ai::{ContentBlock, Context, Message, ToolSpec, UserContent};
use serde_json::json;

use crate::grammar::{TOOL_CALL_CLOSE, TOOL_CALL_OPEN};

/// One turn for the chat template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatTurn {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: &'static str,
    /// The turn's text.
    pub content: String,
}

/// Whether and how the next output must call a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolChoice {
    /// No tools: plain text.
    None,
    /// Text, or one call constrained by the grammar once `<tool_call>` appears.
    Auto,
    /// Exactly one grammar-constrained call.
    Required,
}

/// Most tool calls a small model may make for one prompt before it must answer in text.
pub const MAX_CALLS_PER_PROMPT: usize = 3;

/// The local model's policy: with tools, `required` when the model answers a user message (the
/// first turn of a prompt), `auto` afterwards, so it can report once tool results are in — but
/// plain text once it repeats a call it already made for this prompt, or after
/// [`MAX_CALLS_PER_PROMPT`] calls: a 135M model otherwise loops on the same call.
pub fn tool_choice_for(context: &Context) -> ToolChoice {
    if context.tools.is_empty() {
        return ToolChoice::None;
    }
    if matches!(context.messages.last(), Some(Message::User(_))) {
        return ToolChoice::Required;
    }
    let calls = calls_since_user(context);
    let repeated = calls
        .iter()
        .enumerate()
        .any(|(i, call)| calls[..i].contains(call));
    if repeated || calls.len() >= MAX_CALLS_PER_PROMPT {
        ToolChoice::None
    } else {
        ToolChoice::Auto
    }
}

/// The tool calls (name, arguments) made since the last user message: the calls of this prompt.
pub(crate) fn calls_since_user(context: &Context) -> Vec<(String, serde_json::Value)> {
    let since_user = context
        .messages
        .iter()
        .rposition(|m| matches!(m, Message::User(_)))
        .map_or(0, |at| at + 1);
    context.messages[since_user..]
        .iter()
        .filter_map(|m| match m {
            Message::Assistant(a) => Some(a.tool_calls()),
            _ => None,
        })
        .flatten()
        .map(|call| (call.name.clone(), call.arguments.clone()))
        .collect()
}

/// The turns the template renders for `context`.
pub fn chat_turns(context: &Context) -> Vec<ChatTurn> {
    let mut turns = Vec::with_capacity(context.messages.len() + 1);
    let system = system_text(context.system_prompt.as_deref(), &context.tools);
    if !system.is_empty() {
        turns.push(ChatTurn {
            role: "system",
            content: system,
        });
    }
    for message in context.messages.iter() {
        match message {
            Message::User(user) => turns.push(ChatTurn {
                role: "user",
                content: match &user.content {
                    UserContent::Text(text) => text.clone(),
                    UserContent::Blocks(blocks) => blocks_text(blocks),
                },
            }),
            Message::Assistant(assistant) => {
                let mut content = String::new();
                for block in &assistant.content {
                    match block {
                        ContentBlock::Text(text) => content.push_str(&text.text),
                        ContentBlock::ToolCall(call) => {
                            let call = json!({"name": call.name, "arguments": call.arguments});
                            if !content.is_empty() && !content.ends_with('\n') {
                                content.push('\n');
                            }
                            let _ = write!(content, "{TOOL_CALL_OPEN}\n{call}\n{TOOL_CALL_CLOSE}");
                        }
                        // Reasoning is not replayed to this model; images it cannot see.
                        ContentBlock::Thinking(_) | ContentBlock::Image(_) => {}
                    }
                }
                turns.push(ChatTurn {
                    role: "assistant",
                    content,
                });
            }
            // A 135M model echoes `<tool_response>` tags and loses the thread in `tool` turns;
            // as a user turn that restates the request, it answers from the result.
            Message::ToolResult(result) => turns.push(ChatTurn {
                role: "user",
                content: format!(
                    "{}\n\nThe {} tool gave:\n```\n{}\n```",
                    last_request(context),
                    result.tool_name,
                    blocks_text(&result.content),
                ),
            }),
        }
    }
    turns
}

/// The system prompt, followed by the tool descriptions when there are tools.
pub fn system_text(system_prompt: Option<&str>, tools: &[ToolSpec]) -> String {
    let mut text = system_prompt.unwrap_or_default().trim_end().to_owned();
    if tools.is_empty() {
        return text;
    }
    if !text.is_empty() {
        text.push_str("\n\n");
    }
    text.push_str(
        "# Tools\n\nYou may call one of these functions. Their signatures are inside <tools></tools>:\n<tools>\n",
    );
    for tool in tools {
        // The first sentence only: long descriptions fill a 4,096-token window and distract a
        // small model.
        let function = json!({
            "type": "function",
            "function": {
                "name": tool.name,
                "description": first_sentence(&tool.description),
                "parameters": tool.parameters,
            }
        });
        let _ = writeln!(text, "{function}");
    }
    text.push_str(
        "</tools>\n\nTo call a function, answer with a JSON object holding its name and arguments inside <tool_call></tool_call> tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>",
    );
    if tools.iter().any(|tool| tool.name == "read") {
        text.push_str(
            "\n\nFor example, to look at the file src/app.py:\n<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"src/app.py\"}}\n</tool_call>",
        );
    }
    text
}

fn first_sentence(text: &str) -> &str {
    match text.find(". ") {
        Some(end) => &text[..=end],
        None => text.trim_end(),
    }
}

/// The text of the last user message: what a tool result should help answer.
fn last_request(context: &Context) -> String {
    context
        .messages
        .iter()
        .rev()
        .find_map(|message| match message {
            Message::User(user) => Some(match &user.content {
                UserContent::Text(text) => text.clone(),
                UserContent::Blocks(blocks) => blocks_text(blocks),
            }),
            _ => None,
        })
        .unwrap_or_default()
}

/// Renders turns as ChatML, for models whose GGUF carries no template llama.cpp knows.
pub fn chatml(turns: &[ChatTurn]) -> String {
    let mut out = String::new();
    for turn in turns {
        let _ = write!(
            out,
            "<|im_start|>{}\n{}<|im_end|>\n",
            turn.role, turn.content
        );
    }
    out.push_str("<|im_start|>assistant\n");
    out
}

fn blocks_text(blocks: &[ContentBlock]) -> String {
    let mut parts = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Text(text) => parts.push(text.text.as_str()),
            ContentBlock::Image(_) => parts.push("[image omitted: this model reads text only]"),
            ContentBlock::Thinking(_) | ContentBlock::ToolCall(_) => {}
        }
    }
    parts.join("\n")
}
