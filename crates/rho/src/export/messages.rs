//! Each transcript message as one block of the page: user and assistant turns, tool calls with
//! their results, and the coding agent's own roles (`bashExecution`, summaries, custom).

use std::collections::{HashMap, HashSet};

use rho_agent::{AgentMessage, CustomMessage};
use rho_ai::{AssistantMessage, ContentBlock, Message, StopReason, UserContent, UserMessage};
use rho_tui::view::summary::thousands;
use serde_json::Value;

use super::text::{PREVIEW_LINES, escape, output_block, time_element};
use super::tools::{image, orphan_result, tool_call};

/// The transcript as HTML, in order. Tool results are shown inside the assistant message that
/// called them (matched by `toolCallId`); a result without its call is shown where it stands.
pub fn render_messages(messages: &[AgentMessage]) -> String {
    let results: HashMap<&str, &rho_ai::ToolResultMessage> = messages
        .iter()
        .filter_map(AgentMessage::as_tool_result)
        .map(|r| (r.tool_call_id.as_str(), r.as_ref()))
        .collect();
    let called: HashSet<&str> = messages
        .iter()
        .filter_map(AgentMessage::as_assistant)
        .flat_map(|a| a.tool_calls().map(|c| c.id.as_str()))
        .collect();
    let mut html = String::new();
    for message in messages {
        let block = match message {
            AgentMessage::Llm(Message::User(user)) => user_message(user),
            AgentMessage::Llm(Message::Assistant(assistant)) => {
                assistant_message(assistant, &results)
            }
            AgentMessage::Llm(Message::ToolResult(result)) => {
                if called.contains(result.tool_call_id.as_str()) {
                    String::new()
                } else {
                    orphan_result(result)
                }
            }
            AgentMessage::Custom(custom) => custom_message(custom),
            // The system prompt is shown in the export's header, not in the conversation.
            AgentMessage::System(_) => String::new(),
        };
        if !block.is_empty() {
            html.push_str(&block);
            html.push('\n');
        }
    }
    html
}

fn meta(role: &str, extra: &str, epoch_ms: i64) -> String {
    format!(
        "<div class=\"meta\"><span class=\"role\">{}</span>{extra}{}</div>",
        escape(role),
        time_element(epoch_ms)
    )
}

fn text_div(text: &str) -> String {
    format!("<div class=\"text\">{}</div>", escape(text))
}

fn user_message(user: &UserMessage) -> String {
    let mut html = format!(
        "<section class=\"message user\">{}",
        meta("User", "", user.timestamp)
    );
    match &user.content {
        UserContent::Text(text) => html.push_str(&text_div(text)),
        UserContent::Blocks(blocks) => html.push_str(&blocks_html(blocks)),
    }
    html.push_str("</section>");
    html
}

/// User-side content blocks (text and images) in their order.
fn blocks_html(blocks: &[ContentBlock]) -> String {
    let mut html = String::new();
    for block in blocks {
        match block {
            ContentBlock::Text(t) => html.push_str(&text_div(&t.text)),
            ContentBlock::Image(img) => html.push_str(&image(img)),
            // Not expected on the user side; shown rather than lost.
            ContentBlock::Thinking(t) => html.push_str(&text_div(&t.thinking)),
            ContentBlock::ToolCall(call) => html.push_str(&tool_call(call, None)),
        }
    }
    html
}

fn assistant_message(
    assistant: &AssistantMessage,
    results: &HashMap<&str, &rho_ai::ToolResultMessage>,
) -> String {
    let model = format!(
        "<span class=\"model\">{}/{}</span>",
        escape(&assistant.provider),
        escape(&assistant.model)
    );
    let mut html = format!(
        "<section class=\"message assistant\">{}",
        meta("Assistant", &model, assistant.timestamp)
    );
    // Words first, then the calls, as Pi's export lays a message out.
    for block in &assistant.content {
        match block {
            ContentBlock::Text(t) if !t.text.trim().is_empty() => html.push_str(&text_div(&t.text)),
            ContentBlock::Thinking(t) if t.redacted == Some(true) => {
                html.push_str("<div class=\"thinking redacted\">Thinking (redacted)</div>");
            }
            ContentBlock::Thinking(t) if !t.thinking.trim().is_empty() => html.push_str(&format!(
                "<details class=\"thinking\" open><summary>Thinking</summary>{}</details>",
                text_div(&t.thinking)
            )),
            ContentBlock::Image(img) => html.push_str(&image(img)),
            _ => {}
        }
    }
    for call in assistant.tool_calls() {
        html.push_str(&tool_call(call, results.get(call.id.as_str()).copied()));
    }
    match assistant.stop_reason {
        StopReason::Aborted => html.push_str("<div class=\"error-text\">Aborted</div>"),
        StopReason::Error => html.push_str(&format!(
            "<div class=\"error-text\">Error: {}</div>",
            escape(
                assistant
                    .error_message
                    .as_deref()
                    .unwrap_or("Unknown error")
            )
        )),
        _ => {}
    }
    html.push_str("</section>");
    html
}

fn custom_message(custom: &CustomMessage) -> String {
    let fields = &custom.fields;
    let str_field = |k: &str| fields.get(k).and_then(Value::as_str).unwrap_or("");
    let timestamp = fields.get("timestamp").and_then(Value::as_i64).unwrap_or(0);
    match custom.role.as_str() {
        "bashExecution" => bash_execution(custom, timestamp),
        "compactionSummary" => {
            let tokens = fields
                .get("tokensBefore")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            format!(
                "<details class=\"compaction\"><summary>Compacted from {} tokens</summary>{}</details>",
                thousands(tokens),
                text_div(str_field("summary"))
            )
        }
        "branchSummary" => format!(
            "<section class=\"message summary\">{}{}</section>",
            meta("Branch summary", "", timestamp),
            text_div(str_field("summary"))
        ),
        "custom" if fields.get("display") == Some(&Value::Bool(false)) => String::new(),
        "custom" => {
            let body = match fields.get("content") {
                Some(Value::String(text)) => text_div(text),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(
                        |item| match serde_json::from_value::<ContentBlock>(item.clone()) {
                            Ok(block) => blocks_html(std::slice::from_ref(&block)),
                            Err(_) => json_block(item),
                        },
                    )
                    .collect(),
                Some(other) => json_block(other),
                None => String::new(),
            };
            format!(
                "<section class=\"message custom\">{}{body}</section>",
                meta(&format!("[{}]", str_field("customType")), "", timestamp)
            )
        }
        role => {
            let mut rest = fields.clone();
            rest.shift_remove("timestamp");
            format!(
                "<section class=\"message custom\">{}{}</section>",
                meta(&format!("[{role}]"), "", timestamp),
                json_block(&Value::Object(rest))
            )
        }
    }
}

/// A command the user ran with `!` (Pi's `bashExecution` role).
fn bash_execution(custom: &CustomMessage, timestamp: i64) -> String {
    let fields = &custom.fields;
    let command = fields.get("command").and_then(Value::as_str).unwrap_or("");
    let output = fields.get("output").and_then(Value::as_str).unwrap_or("");
    let cancelled = fields.get("cancelled").and_then(Value::as_bool) == Some(true);
    let exit_code = fields.get("exitCode").and_then(Value::as_i64);
    let failed = cancelled || exit_code.is_some_and(|c| c != 0);
    let mut html = format!(
        "<section class=\"message bash\">{}<div class=\"tool {}\">\
         <div class=\"tool-head\"><span class=\"command\">$ {}</span></div>",
        meta("User bash", "", timestamp),
        if failed { "error" } else { "ok" },
        escape(command)
    );
    if !output.is_empty() {
        html.push_str(&output_block(output, PREVIEW_LINES));
    }
    if cancelled {
        html.push_str("<div class=\"status warning\">(cancelled)</div>");
    } else if let Some(code) = exit_code.filter(|c| *c != 0) {
        html.push_str(&format!("<div class=\"status error\">(exit {code})</div>"));
    }
    if fields.get("truncated").and_then(Value::as_bool) == Some(true) {
        let path = fields.get("fullOutputPath").and_then(Value::as_str);
        html.push_str(&match path {
            Some(p) => format!(
                "<div class=\"status\">(output truncated; full output: {})</div>",
                escape(p)
            ),
            None => "<div class=\"status\">(output truncated)</div>".to_owned(),
        });
    }
    html.push_str("</div></section>");
    html
}

fn json_block(value: &Value) -> String {
    let pretty = serde_json::to_string_pretty(value).unwrap_or_default();
    format!("<pre class=\"args\">{}</pre>", escape(&pretty))
}
