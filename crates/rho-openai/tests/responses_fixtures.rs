//! Every recorded `openai-responses` stream folds into the final message SOURCES.md describes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::responses_common;

use responses_common::{done_item, fold_fixture, kinds, model};
use rho_ai::{
    AssistantMessage, ContentBlock, ErrorInfo, ErrorKind, Model, StopReason, TextContent,
    ThinkingContent, ToolCall, Usage,
};
use serde_json::{Value, json};

fn thinking(text: &str, fixture: &str, item_id: &str) -> ContentBlock {
    ContentBlock::Thinking(ThinkingContent {
        thinking: text.into(),
        thinking_signature: Some(done_item(fixture, item_id).to_string()),
        redacted: None,
    })
}

fn text(text: &str, signature: &str) -> ContentBlock {
    ContentBlock::Text(TextContent {
        text: text.into(),
        text_signature: Some(signature.into()),
    })
}

fn call(call_id: &str, item_id: &str, name: &str, arguments: Value) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        id: format!("{call_id}|{item_id}"),
        name: name.into(),
        arguments,
        thought_signature: None,
    })
}

/// Usage as Pi normalizes it: `input` excludes cache reads, the server's total is kept, the cost
/// is scaled by the service tier's multiplier.
/// `reasoning` is the part of the output the server says was reasoning (Pi 1.6).
fn usage(model: &Model, counts: [u64; 5], multiplier: f64) -> Usage {
    let [input, output, cache_read, total_tokens, reasoning] = counts;
    let mut usage = Usage {
        input,
        output,
        cache_read,
        cache_write: 0,
        reasoning: Some(reasoning),
        total_tokens,
        ..Usage::default()
    };
    model.apply_cost(&mut usage);
    let cost = &mut usage.cost;
    cost.input *= multiplier;
    cost.output *= multiplier;
    cost.cache_read *= multiplier;
    cost.total = cost.input + cost.output + cost.cache_read;
    usage
}

/// The whole expected message; `timestamp` is the call's start, so it is taken from `actual`.
fn expected(
    model: &Model,
    actual: &AssistantMessage,
    response_id: &str,
    content: Vec<ContentBlock>,
    usage: Usage,
    stop_reason: StopReason,
) -> AssistantMessage {
    let mut message = AssistantMessage::empty("openai-responses", &model.provider, &model.id);
    message.content = content;
    message.response_id = Some(response_id.into());
    message.usage = usage;
    message.stop_reason = stop_reason;
    message.timestamp = actual.timestamp;
    // The provider's own status is checked on its own (`the_raw_status_is_kept`).
    message.raw_stop_reason = actual.raw_stop_reason.clone();
    message
}

#[test]
fn text_fixture_folds_to_one_signed_text_block_and_stops() {
    let model = model("openai", "gpt-4o");
    let folded = fold_fixture(&model, "text.sse");
    let actual = folded.message;
    let want = expected(
        &model,
        &actual,
        "resp_67e554a21aa88191b65876ac5e5bbe0406c52f0e511c76ed",
        vec![text(
            "The capital of France is Paris.",
            r#"{"v":1,"id":"msg_67e554a28bec8191b56d3e2331eff88006c52f0e511c76ed"}"#,
        )],
        usage(&model, [278, 9, 0, 287, 0], 1.0),
        StopReason::Stop,
    );
    assert_eq!(actual, want);
    let deltas = ["The", " capital", " of", " France", " is", " Paris", "."];
    let mut shape = vec![
        ("start".to_owned(), None, None),
        ("text_start".into(), Some(0), None),
    ];
    shape.extend(
        deltas
            .iter()
            .map(|d| ("text_delta".to_owned(), Some(0), Some((*d).to_owned()))),
    );
    shape.push(("text_end".into(), Some(0), None));
    shape.push(("done".into(), None, None));
    assert_eq!(kinds(&folded.events), shape);
}

#[test]
fn function_call_fixture_folds_to_a_call_id_item_id_tool_call_and_tool_use() {
    let model = model("openai", "gpt-4o");
    let folded = fold_fixture(&model, "function-call-args.sse");
    let actual = folded.message;
    let want = expected(
        &model,
        &actual,
        "resp_67e554a155508191900ee113293c4c830794405d35281ae2",
        vec![call(
            "call_kL0PCQV7M2WMoVX8V8OtYSAL",
            "fc_67e554a1de488191af0831d35cbe082e0794405d35281ae2",
            "get_capital",
            json!({"country": "France"}),
        )],
        usage(&model, [255, 16, 0, 271, 0], 1.0),
        StopReason::ToolUse,
    );
    assert_eq!(actual, want);
    let shape: Vec<String> = kinds(&folded.events).into_iter().map(|k| k.0).collect();
    let mut want_shape = vec!["start", "toolcall_start"];
    want_shape.extend(["toolcall_delta"; 5]);
    want_shape.extend(["toolcall_end", "done"]);
    assert_eq!(shape, want_shape);
}

#[test]
fn encrypted_reasoning_without_deltas_becomes_an_empty_signed_thinking_block_priced_as_flex() {
    let fixture = "reasoning-function-call-usage.sse";
    let model = model("openai", "gpt-5");
    let actual = fold_fixture(&model, fixture).message;
    let want = expected(
        &model,
        &actual,
        "resp_0050471a34b36ae60068c97b94a480819587a9d70cf2979b33",
        vec![
            thinking(
                "",
                fixture,
                "rs_0050471a34b36ae60068c97bac4dcc819595fd0f80d6b3c405",
            ),
            call(
                "call_CWXgs68YprAjp6t0371hiPOI",
                "fc_0050471a34b36ae60068c97bf19d9c819590eaf42c0edc1042",
                "final_result",
                json!({"result": 6666}),
            ),
        ],
        usage(&model, [53, 469, 0, 522, 448], 0.5),
        StopReason::ToolUse,
    );
    assert_eq!(actual, want);
    let ContentBlock::Thinking(block) = &actual.content[0] else {
        panic!("thinking first");
    };
    let signature: Value =
        serde_json::from_str(block.thinking_signature.as_deref().unwrap()).unwrap();
    assert!(
        signature["encrypted_content"]
            .as_str()
            .unwrap()
            .starts_with("gAAAAA")
    );
}

#[test]
fn reasoning_message_and_call_fold_in_order_with_the_commentary_phase_in_the_text_signature() {
    let fixture = "reasoning-message-function-call.sse";
    let model = model("openai", "gpt-5.5");
    let actual = fold_fixture(&model, fixture).message;
    let want = expected(
        &model,
        &actual,
        "resp_0fabc13af1ee0049006a691dfdab8881a1a75f2db7ff78cb83",
        vec![
            thinking(
                "",
                fixture,
                "rs_0fabc13af1ee0049006a691dfe60b081a1baa444d3cf19afba",
            ),
            text(
                "I’ll check the capital lookup tool for “PotatoLand.”",
                r#"{"v":1,"id":"msg_0fabc13af1ee0049006a691dfebdc881a1ae18d027c313d8ce","phase":"commentary"}"#,
            ),
            call(
                "call_LabG58Uhrq9kZvR52BYKjToD",
                "fc_0fabc13af1ee0049006a691dff0c1481a1b4a0eec7e3c753bb",
                "get_capital",
                json!({"country": "PotatoLand"}),
            ),
        ],
        usage(&model, [63, 69, 0, 132, 26], 1.0),
        StopReason::ToolUse,
    );
    assert_eq!(actual, want);
}

/// Checks a long text by length (in chars), start and end. SOURCES.md counts a newline as two
/// characters (its `\n` escape), so its totals exceed these by the number of newlines.
fn long(text: &str, chars: usize, start: &str, end: &str) -> String {
    assert_eq!(
        (
            text.chars().count(),
            text.starts_with(start),
            text.ends_with(end)
        ),
        (chars, true, true),
        "text was {text:?}"
    );
    text.to_owned()
}

#[test]
fn four_summary_parts_join_with_blank_lines_into_the_thinking_text() {
    let fixture = "reasoning-summary-long.sse";
    let model = model("openai", "o3-mini");
    let folded = fold_fixture(&model, fixture);
    let actual = folded.message;
    let (ContentBlock::Thinking(summary), ContentBlock::Text(answer)) =
        (&actual.content[0], &actual.content[1])
    else {
        panic!("thinking then text: {:?}", actual.content);
    };
    let summary_text = long(
        &summary.thinking,
        // SOURCES.md's 2030 counts the four parts run together with each `\n` as two characters
        // (8 newlines inside the parts); joined by Pi's blank lines, 6 separator characters are
        // added: 2030 - 8 + 6.
        2028,
        "**Providing street crossing instructions**\n\nThe ",
        "It will be clear and easy to understand!",
    );
    assert_eq!(summary.thinking.matches("\n\n**").count(), 3, "four parts");
    let answer_text = long(
        &answer.text,
        1262 - answer.text.matches('\n').count(),
        "I'm not a road safety professional, but here are some generally accepted guidelines that m",
        "",
    );
    let want = expected(
        &model,
        &actual,
        "resp_68c42d0fb418819dbfa579f69406b49508fbf9b1584184ff",
        vec![
            thinking(
                &summary_text,
                fixture,
                "rs_68c42d1d0878819d8266007cd3d1402c08fbf9b1584184ff",
            ),
            text(
                &answer_text,
                r#"{"v":1,"id":"msg_68c42d26866c819da8d5c606621c911608fbf9b1584184ff"}"#,
            ),
        ],
        usage(&model, [13, 1680, 0, 1693, 1408], 1.0),
        StopReason::Stop,
    );
    assert_eq!(actual, want);
    // While streaming, each finished summary part adds its blank line as a delta.
    let blank_lines = kinds(&folded.events)
        .into_iter()
        .filter(|k| k.0 == "thinking_delta" && k.2.as_deref() == Some("\n\n"))
        .count();
    assert_eq!(blank_lines, 4);
}

#[test]
fn deepseek_raw_reasoning_text_and_a_call_fold_with_cached_tokens_split_out() {
    let fixture = "deepseek-reasoning-function-call.sse";
    let model = model("deepseek", "deepseek-v4-flash");
    let actual = fold_fixture(&model, fixture).message;
    let want = expected(
        &model,
        &actual,
        "1235b7ba-fdc9-4a1c-bfe4-6137c207baf3",
        vec![
            thinking(
                "The user asks about temperature in Tokyo. I'll call the tool.",
                fixture,
                "fa6f3a83-5d25-46e8-9d03-1a89ce5cf2ba",
            ),
            call(
                "call_00_xjY8Z2BvSlzgEmmw0DtH0464",
                "62bf2bb7-56af-4e3a-883b-83d4aad54da1",
                "get_temperature",
                json!({"city": "Tokyo"}),
            ),
        ],
        usage(&model, [110, 59, 256, 425, 14], 1.0),
        StopReason::ToolUse,
    );
    assert_eq!(actual, want);
}

#[test]
fn lmstudio_arguments_that_arrive_only_in_done_still_fill_the_call() {
    let fixture = "lmstudio-reasoning-tool-call.jsonl";
    let model = model("lmstudio", "zai-org/glm-4.7-flash");
    let folded = fold_fixture(&model, fixture);
    let actual = folded.message;
    let ContentBlock::Thinking(reasoning) = &actual.content[0] else {
        panic!("thinking first: {:?}", actual.content);
    };
    let reasoning_text = long(
        &reasoning.thinking,
        242,
        "The user is asking for the weather in San Francisc",
        "to make the function call.",
    );
    let want = expected(
        &model,
        &actual,
        "resp_cc7bfe18e2f2eca93006515c0fd19cfed16e46a93a60444a",
        vec![
            thinking(&reasoning_text, fixture, "rs_3yo6zy4vu4hq6iegqwhn1"),
            text(
                "I'll get the current weather information for San Francisco for you.",
                r#"{"v":1,"id":"msg_y4g4x99xneifrr153t0y4g"}"#,
            ),
            call(
                "call_2025306790300011",
                "fc_z9synwu0kvc33k6e9u3dq4",
                "weather",
                json!({"location": "San Francisco"}),
            ),
        ],
        usage(&model, [180, 61, 2, 243, 48], 1.0),
        StopReason::ToolUse,
    );
    assert_eq!(actual, want);
    // The whole argument text arrives as one delta, from `function_call_arguments.done`.
    let call_deltas: Vec<_> = kinds(&folded.events)
        .into_iter()
        .filter(|k| k.0 == "toolcall_delta")
        .collect();
    assert_eq!(
        call_deltas,
        [(
            "toolcall_delta".to_owned(),
            Some(2),
            Some(r#"{"location":"San Francisco"}"#.to_owned())
        )]
    );
}

#[test]
fn openrouter_reasoning_finished_after_the_message_still_ends_its_own_block() {
    let fixture = "openrouter-reasoning-text.sse";
    let model = model("openrouter", "openai/gpt-oss-20b");
    let actual = fold_fixture(&model, fixture).message;
    let want = expected(
        &model,
        &actual,
        "gen-1764265411-Fu1iEX7h5MRWiL79lb94",
        vec![
            thinking(
                "The user asks: \"What is 2+2?\" They expect a straightforward answer: 4. Just answer 4.",
                fixture,
                "rs_tmp_2kbe7x16sax",
            ),
            text("4", r#"{"v":1,"id":"msg_tmp_8cjof4f6zpw"}"#),
        ],
        usage(&model, [78, 37, 0, 115, 22], 1.0),
        StopReason::Stop,
    );
    assert_eq!(actual, want);
}

#[test]
fn insufficient_quota_error_event_fails_with_the_providers_message_as_quota_exceeded() {
    let model = model("openai", "gpt-5-nano");
    let folded = fold_fixture(&model, "error-insufficient-quota.jsonl");
    let actual = folded.message;
    let mut want = expected(
        &model,
        &actual,
        "resp_05500b38c2cd9bfc00691c7c9d222481a3b595421266dab424",
        vec![],
        Usage::default(),
        StopReason::Error,
    );
    want.error_message = Some(
        "You exceeded your current quota, please check your plan and billing details. For more \
         information on this error, read the docs: \
         https://platform.openai.com/docs/guides/error-codes/api-errors."
            .into(),
    );
    want.error_info = Some(ErrorInfo::new(ErrorKind::QuotaExceeded));
    assert_eq!(actual, want);
    let shape: Vec<String> = kinds(&folded.events).into_iter().map(|k| k.0).collect();
    assert_eq!(shape, ["start", "error"]);
}
