//! Every recorded `openai-chat` stream folds into the final message SOURCES.md describes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{fold_fixture, kinds, model, priced};
use rho_ai::{
    AssistantMessage, ContentBlock, ErrorInfo, ErrorKind, Model, StopReason, ThinkingContent,
    ToolCall, Usage,
};
use serde_json::{Value, json};

fn thinking(text: &str, field: &str) -> ContentBlock {
    ContentBlock::Thinking(ThinkingContent {
        thinking: text.into(),
        thinking_signature: Some(field.into()),
        redacted: None,
    })
}

fn call(id: &str, name: &str, arguments: Value) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        id: id.into(),
        name: name.into(),
        arguments,
        thought_signature: None,
    })
}

/// Usage as Pi normalizes it: `input` excludes cache reads; the total is the sum of the parts;
/// `reasoning` is what the server reported of the output (Pi 1.6).
fn usage(model: &Model, input: u64, output: u64, cache_read: u64, reasoning: Option<u64>) -> Usage {
    let mut usage = Usage {
        input,
        output,
        cache_read,
        cache_write: 0,
        reasoning,
        total_tokens: input + output + cache_read,
        ..Usage::default()
    };
    model.apply_cost(&mut usage);
    usage
}

struct Expect<'a> {
    model: &'a Model,
    response_id: &'a str,
    response_model: Option<&'a str>,
    content: Vec<ContentBlock>,
    usage: Usage,
    stop_reason: StopReason,
    error: Option<(&'a str, ErrorKind)>,
}

impl Expect<'_> {
    /// The whole expected message; `timestamp` is the call's start, so it is taken from `actual`.
    fn message(self, actual: &AssistantMessage) -> AssistantMessage {
        let mut message =
            AssistantMessage::empty("openai-completions", &self.model.provider, &self.model.id);
        message.content = self.content;
        message.response_id = Some(self.response_id.into());
        message.response_model = self.response_model.map(str::to_owned);
        message.usage = self.usage;
        message.stop_reason = self.stop_reason;
        if let Some((text, kind)) = self.error {
            message.error_message = Some(text.into());
            message.error_info = Some(ErrorInfo::new(kind));
        }
        message.timestamp = actual.timestamp;
        // The provider's own reason is checked on its own (`the_raw_finish_reason_is_kept`).
        message.raw_stop_reason = actual.raw_stop_reason.clone();
        message
    }
}

/// Checks a long reasoning text by length (in chars), start and end, and returns it for the
/// whole-message comparison. SOURCES.md counts a newline as two characters (its `\n` escape),
/// so its totals exceed these by the number of newlines.
fn long_thinking(actual: &AssistantMessage, chars: usize, start: &str, end: &str) -> String {
    let Some(ContentBlock::Thinking(block)) = actual.content.first() else {
        panic!("first block is not thinking: {:?}", actual.content.first());
    };
    assert_eq!(
        (
            block.thinking.chars().count(),
            block.thinking.starts_with(start),
            block.thinking.ends_with(end)
        ),
        (chars, true, true),
        "thinking was {:?}",
        block.thinking
    );
    block.thinking.clone()
}

#[test]
fn crusoe_vllm_text_and_usage_chunk_fold_to_a_text_message() {
    let model = model("crusoe", "meta-llama/Llama-3.3-70B-Instruct");
    let actual = fold_fixture(&model, "crusoe-vllm-text-usage.sse").message;
    let expected = Expect {
        model: &model,
        response_id: "chatcmpl-bcfbe349402eb3d2",
        response_model: None,
        content: vec![ContentBlock::text("1, 2, 3, 4, 5")],
        usage: usage(&model, 46, 14, 0, Some(0)),
        stop_reason: StopReason::Stop,
        error: None,
    };
    assert_eq!(actual, expected.message(&actual));
}

#[test]
fn deepseek_reasoning_content_becomes_one_thinking_block_before_the_text() {
    let model = model("deepseek", "deepseek-reasoner");
    let actual = fold_fixture(&model, "deepseek-reasoning-content.sse").message;
    let reasoning = long_thinking(
        &actual,
        882,
        "Hmm, the user just said \"Hello\". It's a simple greeting but I wonder i",
        "not reply further - and that's okay too.",
    );
    let expected = Expect {
        model: &model,
        response_id: "33be18fc-3842-486c-8c29-dd8e578f7f20",
        response_model: None,
        content: vec![
            thinking(&reasoning, "reasoning_content"),
            ContentBlock::text("Hello there! 😊 How can I help you today?"),
        ],
        usage: usage(&model, 6, 212, 0, Some(198)),
        stop_reason: StopReason::Stop,
        error: None,
    };
    assert_eq!(actual, expected.message(&actual));
}

#[test]
fn deepseek_tool_call_arguments_in_many_fragments_join_and_cached_tokens_split_out() {
    let model = model("deepseek", "deepseek-reasoner");
    let actual = fold_fixture(&model, "deepseek-reasoning-tool-call.jsonl").message;
    let expected = Expect {
        model: &model,
        response_id: "cca85624-4056-401f-b220-d77601d1f70d",
        response_model: None,
        content: vec![
            thinking(
                "The user is asking for the weather in San Francisco. I need to use the weather tool \
                 to get this information. Let me invoke the weather tool with the location parameter \
                 set to \"San Francisco\".",
                "reasoning_content",
            ),
            call(
                "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
                "weather",
                json!({"location": "San Francisco"}),
            ),
        ],
        // prompt 339 of which 320 cached (prompt_tokens_details.cached_tokens).
        usage: usage(&model, 19, 83, 320, Some(39)),
        stop_reason: StopReason::ToolUse,
        error: None,
    };
    assert_eq!(actual, expected.message(&actual));
}

#[test]
fn groq_error_event_fails_with_the_providers_message_keeping_the_reasoning() {
    let model = model("groq", "openai/gpt-oss-120b");
    let actual = fold_fixture(&model, "groq-gpt-oss-error-event.sse").message;
    let reasoning = long_thinking(
        &actual,
        412,
        "We need to call the tool with invalid parameters first, then second ca",
        "d call with name: \"test\". Let's do that.",
    );
    let expected = Expect {
        model: &model,
        response_id: "chatcmpl-4f39f3af-3267-4ac1-a0cf-6aa7451877dc",
        response_model: None,
        content: vec![thinking(&reasoning, "reasoning")],
        // No usage arrived, so nothing was priced.
        usage: Usage::default(),
        stop_reason: StopReason::Error,
        error: Some((
            "Tool call validation failed: tool call validation failed: parameters for tool \
             get_something_by_name did not match schema: errors: [missing properties: 'name', \
             additionalProperties 'invalid_param' not allowed]",
            ErrorKind::Provider,
        )),
    };
    assert_eq!(actual, expected.message(&actual));
}

#[test]
fn groq_gpt_oss_reasoning_field_and_whole_tool_call_fold() {
    let model = model("groq", "openai/gpt-oss-120b");
    let actual = fold_fixture(&model, "groq-gpt-oss-reasoning-tool-call.sse").message;
    let expected = Expect {
        model: &model,
        response_id: "chatcmpl-e35442a8-12c0-4fb4-8be4-0e51727ce7b7",
        response_model: None,
        content: vec![
            thinking(
                "We need to call the function with correct parameter \"name\". Provide a name, e.g., \"example\".",
                "reasoning",
            ),
            call(
                "fc_bfb39741-3748-4def-9886-a93fc9c64a90",
                "get_something_by_name",
                json!({"name": "example"}),
            ),
        ],
        usage: usage(&model, 304, 49, 0, Some(23)),
        stop_reason: StopReason::ToolUse,
        error: None,
    };
    assert_eq!(actual, expected.message(&actual));
}

#[test]
fn groq_llama_tool_call_with_empty_object_arguments_and_x_groq_usage() {
    let model = model("groq", "llama-3.3-70b-versatile");
    let actual = fold_fixture(&model, "groq-llama-tool-call-x-groq.jsonl").message;
    let expected = Expect {
        model: &model,
        response_id: "chatcmpl-b610d559-f156-4aca-8827-24b4fe6af54f",
        response_model: None,
        content: vec![call("tk85n1k4m", "weather", json!({}))],
        usage: usage(&model, 210, 15, 0, Some(0)),
        stop_reason: StopReason::ToolUse,
        error: None,
    };
    assert_eq!(actual, expected.message(&actual));
}

#[test]
fn mistral_tool_call_without_index_or_type_is_one_call() {
    let model = model("mistral", "mistral-small-latest");
    let actual = fold_fixture(&model, "mistral-tool-call-no-index.jsonl").message;
    let expected = Expect {
        model: &model,
        response_id: "b3999b8c93e04e11bcbff7bcab829667",
        response_model: None,
        content: vec![call(
            "gSIMJiOkT",
            "weather",
            json!({"location": "San Francisco"}),
        )],
        usage: usage(&model, 124, 22, 0, Some(0)),
        stop_reason: StopReason::ToolUse,
        error: None,
    };
    assert_eq!(actual, expected.message(&actual));
}

#[test]
fn openai_text_with_usage_chunk_has_cost_and_the_dated_response_model() {
    let model = priced(model("openai", "gpt-4o-mini"));
    let actual = fold_fixture(&model, "openai-gpt4o-mini-text-usage.sse").message;
    let expected = Expect {
        model: &model,
        response_id: "chatcmpl-Dx0Xq5Xx9rHB2ehcHZCRDsnuymUXc",
        response_model: Some("gpt-4o-mini-2024-07-18"),
        content: vec![ContentBlock::text("The capital of the UK is London.")],
        usage: usage(&model, 78, 9, 0, Some(0)),
        stop_reason: StopReason::Stop,
        error: None,
    };
    assert_eq!(actual, expected.message(&actual));
    assert!(actual.usage.cost.total > 0.0, "priced model has a cost");
}

#[test]
fn openai_fragmented_arguments_join_into_one_object() {
    let model = model("openai", "gpt-4o-mini");
    let actual = fold_fixture(&model, "openai-gpt4o-mini-tool-call-fragmented-args.sse").message;
    let expected = Expect {
        model: &model,
        response_id: "chatcmpl-Dx0XpqH8w09uBXwq1zFGYdETjtnEl",
        response_model: Some("gpt-4o-mini-2024-07-18"),
        content: vec![call(
            "call_ZR5UUuTt3pf61kjwAJIYdVMj",
            "get_capital",
            json!({"country": "UK"}),
        )],
        usage: usage(&model, 53, 15, 0, Some(0)),
        stop_reason: StopReason::ToolUse,
        error: None,
    };
    assert_eq!(actual, expected.message(&actual));
}

#[test]
fn openai_parallel_tool_calls_are_grouped_by_index() {
    let model = model("openai", "gpt-4o");
    let actual = fold_fixture(&model, "openai-gpt4o-parallel-tool-calls.sse").message;
    let expected = Expect {
        model: &model,
        response_id: "chatcmpl-C1KMEUDb1vVwsROQUCZTgG6A6vtWo",
        response_model: Some("gpt-4o-2024-08-06"),
        content: vec![
            call("call_3rqTYrA6H21AYUaRGP4F66oq", "get_country", json!({})),
            call(
                "call_Xw9XMKBJU48kAAd78WgIswDx",
                "get_product_name",
                json!({}),
            ),
        ],
        usage: usage(&model, 364, 40, 0, Some(0)),
        stop_reason: StopReason::ToolUse,
        error: None,
    };
    assert_eq!(actual, expected.message(&actual));
}

#[test]
fn openrouter_midstream_error_after_length_fails_despite_done_and_keeps_usage() {
    let model = model("openrouter", "minimax/minimax-m2:free");
    let actual = fold_fixture(&model, "openrouter-midstream-error-comments.sse").message;
    let expected = Expect {
        model: &model,
        response_id: "gen-1762179802-UN8pkJI4AGZvryk0kFnb",
        response_model: None,
        content: vec![thinking(
            "We need to respond to a greeting. The user",
            "reasoning",
        )],
        usage: usage(&model, 43, 10, 0, Some(11)),
        stop_reason: StopReason::Error,
        error: Some(("Token limit reached", ErrorKind::Provider)),
    };
    assert_eq!(actual, expected.message(&actual));
}

#[test]
fn openrouter_reasoning_then_text_with_usage_after_the_finish_chunk() {
    let model = model("openrouter", "anthropic/claude-sonnet-4.5");
    let actual = fold_fixture(&model, "openrouter-reasoning-details.sse").message;
    let expected = Expect {
        model: &model,
        response_id: "gen-1765226419-AGrwjunAftQIAgweibL8",
        response_model: None,
        content: vec![
            thinking(
                "This is a simple arithmetic question. 2+2 equals 4.",
                "reasoning",
            ),
            ContentBlock::text("2 + 2 = 4"),
        ],
        usage: usage(&model, 43, 36, 0, Some(13)),
        stop_reason: StopReason::Stop,
        error: None,
    };
    assert_eq!(actual, expected.message(&actual));
}

#[test]
fn xai_reasoning_tool_call_and_cached_prompt_tokens() {
    let model = model("xai", "grok-3-mini");
    let actual = fold_fixture(&model, "xai-grok-reasoning-tool-call.jsonl").message;
    let expected = Expect {
        model: &model,
        response_id: "de9d896d-e946-b3a7-bb14-75ab33326930",
        response_model: None,
        content: vec![
            thinking("First, the user is", "reasoning_content"),
            call(
                "call_55117580",
                "weather",
                json!({"location": "San Francisco"}),
            ),
        ],
        // prompt 291 with 290 cached; completion_tokens (26) excludes the 196 reasoning tokens,
        // and the total is recomputed from the parts, not xAI's 513.
        usage: usage(&model, 1, 26, 290, Some(196)),
        stop_reason: StopReason::ToolUse,
        error: None,
    };
    assert_eq!(actual, expected.message(&actual));
}

#[test]
fn zai_reasoning_content_starting_with_a_newline_is_kept_verbatim() {
    let model = model("zai", "glm-4.7");
    let actual = fold_fixture(&model, "zai-glm-reasoning-content.sse").message;
    let reasoning = long_thinking(
        &actual,
        2173,
        "\n1.  **Analyze the User's Request:** The user is asking a very simple",
        "\n\n7.  **Draft the final response:** \"4\".",
    );
    let expected = Expect {
        model: &model,
        response_id: "202607010739425543ff9439144b2c",
        response_model: None,
        content: vec![
            thinking(&reasoning, "reasoning_content"),
            ContentBlock::text("4"),
        ],
        usage: usage(&model, 13, 564, 0, Some(561)),
        stop_reason: StopReason::Stop,
        error: None,
    };
    assert_eq!(actual, expected.message(&actual));
}

fn ev(
    kind: &str,
    index: Option<u64>,
    delta: Option<&str>,
) -> (String, Option<u64>, Option<String>) {
    (kind.to_owned(), index, delta.map(str::to_owned))
}

#[test]
fn parallel_tool_calls_stream_start_and_deltas_then_all_ends_after_the_body() {
    let model = model("openai", "gpt-4o");
    let folded = fold_fixture(&model, "openai-gpt4o-parallel-tool-calls.sse");
    assert_eq!(
        kinds(&folded.events),
        vec![
            ev("start", None, None),
            ev("toolcall_start", Some(0), None),
            ev("toolcall_delta", Some(0), Some("")),
            ev("toolcall_delta", Some(0), Some("{}")),
            ev("toolcall_start", Some(1), None),
            ev("toolcall_delta", Some(1), Some("")),
            ev("toolcall_delta", Some(1), Some("{}")),
            ev("toolcall_end", Some(0), None),
            ev("toolcall_end", Some(1), None),
            ev("done", None, None),
        ]
    );
}

#[test]
fn reasoning_then_text_streams_deltas_and_ends_in_content_order() {
    let model = model("openrouter", "anthropic/claude-sonnet-4.5");
    let folded = fold_fixture(&model, "openrouter-reasoning-details.sse");
    assert_eq!(
        kinds(&folded.events),
        vec![
            ev("start", None, None),
            ev("thinking_start", Some(0), None),
            ev("thinking_delta", Some(0), Some("This")),
            ev(
                "thinking_delta",
                Some(0),
                Some(" is a simple arithmetic question. ")
            ),
            ev("thinking_delta", Some(0), Some("2+2 equals 4.")),
            ev("text_start", Some(1), None),
            ev("text_delta", Some(1), Some("2 ")),
            ev("text_delta", Some(1), Some("+ 2 = 4")),
            ev("thinking_end", Some(0), None),
            ev("text_end", Some(1), None),
            ev("done", None, None),
        ]
    );
}

#[test]
fn every_fixture_ends_with_exactly_one_terminal_event() {
    for name in common::FIXTURES {
        let folded = fold_fixture(&model("p", "m"), name);
        let terminals = folded
            .events
            .iter()
            .filter(|e| e.terminal_message().is_some())
            .count();
        assert_eq!((name, terminals), (name, 1));
    }
}
