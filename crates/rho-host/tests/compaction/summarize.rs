//! The summarisation request (Pi's prompts, word for word), the summary it produces, split
//! turns, cancellation and failure.

use std::sync::{Arc, Mutex};

use rho_agent::AgentMessage;
use rho_ai::faux::{FauxProvider, FauxStep, faux_error, faux_text, faux_thinking, faux_tool_call};
use rho_ai::{ContentBlock, ErrorKind, Message, Model, ThinkingLevel, Usage, UserContent};
use rho_host::compaction::prompt::{TURN_PREFIX_SUMMARIZATION_PROMPT, UPDATE_SUMMARIZATION_PROMPT};
use rho_host::compaction::{
    CompactionDetails, CompactionError, CompactionPolicy, CompactionResult, PathEntry, Summarizer,
    SummaryRetry, SummaryRetryNotice, SummaryRetryPolicy, SummarySource,
    compaction_summary_message, convert_to_llm, prepare_compaction,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::{calls, chars, path_of, reply, result, said, user};

/// Pi 0.73.1's system prompt of every summarisation call.
const SYSTEM_PROMPT: &str = r#"You are a context summarization assistant. Your task is to read a conversation between a user and an AI coding assistant, then produce a structured summary following the exact format specified.

Do NOT continue the conversation. Do NOT respond to any questions in the conversation. ONLY output the structured summary."#;

/// Pi 0.73.1's instructions for a first summary.
const FIRST_SUMMARY_PROMPT: &str = r#"The messages above are a conversation to summarize. Create a structured context checkpoint summary that another LLM will use to continue the work.

Use this EXACT format:

## Goal
[What is the user trying to accomplish? Can be multiple items if the session covers different tasks.]

## Constraints & Preferences
- [Any constraints, preferences, or requirements mentioned by user]
- [Or "(none)" if none were mentioned]

## Progress
### Done
- [x] [Completed tasks/changes]

### In Progress
- [ ] [Current work]

### Blocked
- [Issues preventing progress, if any]

## Key Decisions
- **[Decision]**: [Brief rationale]

## Next Steps
1. [Ordered list of what should happen next]

## Critical Context
- [Any data, examples, or references needed to continue]
- [Or "(none)" if not applicable]

Keep each section concise. Preserve exact file paths, function names, and error messages."#;

/// What the faux model was asked: (system prompt, user text, max tokens) of each call.
type Asked = Arc<Mutex<Vec<(String, String, Option<u64>)>>>;

/// A faux provider whose replies are computed by `answer` from the prompt text; each reply
/// reports 120 tokens of usage.
fn summarizing_model(answer: fn(&str) -> String) -> (FauxProvider, Asked) {
    let provider = FauxProvider::new().with_usage(false);
    let asked: Asked = Arc::default();
    let record = asked.clone();
    provider.set_fallback(faux_error(vec![], "unused"));
    for _ in 0..2 {
        let record = record.clone();
        provider.push(FauxStep::Factory(Box::new(move |context, options, _| {
            let [Message::User(prompt)] = context.messages.as_slice() else {
                return Err("expected one user message".into());
            };
            let UserContent::Blocks(blocks) = &prompt.content else {
                return Err("expected blocks".into());
            };
            let text: String = blocks.iter().filter_map(ContentBlock::as_text).collect();
            let system = context
                .system_prompt
                .as_deref()
                .unwrap_or_default()
                .to_owned();
            record
                .lock()
                .unwrap()
                .push((system, text.clone(), options.max_tokens));
            let mut message = reply(vec![faux_text(answer(&text))], 120, 0);
            message.usage.input = 100;
            message.usage.output = 20;
            Ok(message)
        })));
    }
    (provider, asked)
}

fn usage_of(calls: u64) -> Usage {
    Usage {
        input: 100 * calls,
        output: 20 * calls,
        total_tokens: 120 * calls,
        ..Usage::default()
    }
}

fn coding_session() -> Vec<PathEntry> {
    path_of(vec![
        user("Fix the bug in src/a.rs", 1),
        reply(
            vec![
                faux_thinking("Let me look"),
                faux_text("Reading the file."),
                faux_tool_call("c1", "read", json!({"path": "README.md", "offset": 1})),
            ],
            0,
            2,
        )
        .into(),
        result("c1", "read", "fn main() {}", 3),
        calls(
            "c2",
            "edit",
            json!({"path": "src/a.rs", "oldText": "a", "newText": "b"}),
            4,
        ),
        result("c2", "edit", "Edited src/a.rs", 5),
        reply(vec![faux_text("Done.")], 3_000, 6).into(),
        user("Now run the tests", 7),
    ])
}

fn summarizer<'a>(provider: &'a FauxProvider, model: &'a Model) -> Summarizer<'a> {
    Summarizer {
        provider,
        model,
        api_key: Some("key".into()),
        thinking_level: ThinkingLevel::High,
        retry: None,
    }
}

#[tokio::test]
async fn the_model_receives_pis_summarization_prompt_and_its_reply_becomes_the_summary() {
    let (provider, asked) = summarizing_model(|_| "## Goal\nFix the bug".into());
    let policy = CompactionPolicy {
        keep_recent_tokens: 5,
        ..CompactionPolicy::default()
    };
    let prepared = prepare_compaction(&coding_session(), &policy).unwrap();

    let result = summarizer(&provider, &provider.model())
        .compact(&prepared, None, &CancellationToken::new())
        .await
        .unwrap();

    let conversation = "[User]: Fix the bug in src/a.rs\n\n\
        [Assistant thinking]: Let me look\n\n\
        [Assistant]: Reading the file.\n\n\
        [Assistant tool calls]: read(path=\"README.md\", offset=1)\n\n\
        [Tool result]: fn main() {}\n\n\
        [Assistant tool calls]: edit(path=\"src/a.rs\", oldText=\"a\", newText=\"b\")\n\n\
        [Tool result]: Edited src/a.rs\n\n\
        [Assistant]: Done.";
    let expected_prompt =
        format!("<conversation>\n{conversation}\n</conversation>\n\n{FIRST_SUMMARY_PROMPT}");
    // 0.8 × reserveTokens (16384); the faux model does not reason, so no reasoning is asked.
    assert_eq!(
        asked.lock().unwrap().clone(),
        vec![(SYSTEM_PROMPT.to_owned(), expected_prompt, Some(13_107))]
    );
    assert_eq!(
        result,
        CompactionResult {
            summary: "## Goal\nFix the bug\n\n<read-files>\nREADME.md\n</read-files>\n\n\
                <modified-files>\nsrc/a.rs\n</modified-files>"
                .into(),
            first_kept_entry_id: "e6".into(),
            tokens_before: 3_005,
            estimated_tokens_after: 0,
            details: CompactionDetails {
                read_files: vec!["README.md".into()],
                modified_files: vec!["src/a.rs".into()],
            },
            first_kept_index: 6,
            usage: usage_of(1),
        }
    );
}

#[tokio::test]
async fn an_update_carries_the_previous_summary_and_the_additional_focus() {
    let (provider, asked) = summarizing_model(|_| "updated".into());
    let mut prepared = prepare_compaction(&coding_session(), &CompactionPolicy::default()).unwrap();
    prepared.messages_to_summarize = vec![user("more", 1)];
    prepared.previous_summary = Some("## Goal\nOld".into());

    summarizer(&provider, &provider.model())
        .compact(&prepared, Some("the tests"), &CancellationToken::new())
        .await
        .unwrap();

    let expected = format!(
        "<conversation>\n[User]: more\n</conversation>\n\n\
         <previous-summary>\n## Goal\nOld\n</previous-summary>\n\n\
         {UPDATE_SUMMARIZATION_PROMPT}\n\nAdditional focus: the tests"
    );
    assert_eq!(asked.lock().unwrap()[0].1, expected);
    assert!(UPDATE_SUMMARIZATION_PROMPT.starts_with(
        "The messages above are NEW conversation messages to incorporate into the existing summary provided in <previous-summary> tags."
    ));
}

#[tokio::test]
async fn a_split_turn_summarises_its_prefix_separately_and_appends_it() {
    let (provider, asked) = summarizing_model(|prompt| {
        if prompt.ends_with(TURN_PREFIX_SUMMARIZATION_PROMPT) {
            "PREFIX"
        } else {
            "HISTORY"
        }
        .into()
    });
    let path = path_of(vec![
        user("Earlier", 1),
        said("Earlier reply", 2),
        user("Big task", 3),
        calls("c1", "read", json!({"path": "a"}), 4),
        result("c1", "read", &chars(2_500), 5),
        said(&chars(400), 6),
    ]);
    let policy = CompactionPolicy {
        keep_recent_tokens: 100,
        ..CompactionPolicy::default()
    };
    let prepared = prepare_compaction(&path, &policy).unwrap();

    let result = summarizer(&provider, &provider.model())
        .compact(&prepared, None, &CancellationToken::new())
        .await
        .unwrap();

    assert_eq!(
        result.summary,
        "HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX\n\n<read-files>\na\n</read-files>"
    );
    assert_eq!(
        (result.first_kept_entry_id.as_str(), result.usage),
        ("e5", usage_of(2))
    );
    let mut asked = asked.lock().unwrap().clone();
    asked.sort_by_key(|(_, _, max)| *max);
    let prefix_prompt = format!(
        "<conversation>\n[User]: Big task\n\n[Assistant tool calls]: read(path=\"a\")\n\n\
         [Tool result]: {}\n\n[... 500 more characters truncated]\n</conversation>\n\n\
         {TURN_PREFIX_SUMMARIZATION_PROMPT}",
        chars(2_000)
    );
    assert_eq!(
        (asked[0].1.as_str(), asked[0].2),
        (prefix_prompt.as_str(), Some(8_192))
    );
    assert_eq!(asked[1].2, Some(13_107));
    assert!(asked[1].1.starts_with(
        "<conversation>\n[User]: Earlier\n\n[Assistant]: Earlier reply\n</conversation>"
    ));
}

#[tokio::test]
async fn a_cancelled_summarization_is_aborted_not_failed() {
    let (provider, asked) = summarizing_model(|_| "never used".into());
    let prepared = prepare_compaction(&coding_session(), &CompactionPolicy::default()).unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();

    let outcome = summarizer(&provider, &provider.model())
        .compact(&prepared, None, &cancel)
        .await;

    assert_eq!(outcome, Err(CompactionError::Aborted));
    assert_eq!(
        asked.lock().unwrap().len(),
        1,
        "the call was made and cancelled"
    );
}

#[tokio::test]
async fn a_failed_summarization_says_why_with_its_error_kind() {
    let provider = FauxProvider::new().with_usage(false);
    provider.push(faux_error(vec![], "boom"));
    let prepared = prepare_compaction(&coding_session(), &CompactionPolicy::default()).unwrap();

    let outcome = summarizer(&provider, &provider.model())
        .compact(&prepared, None, &CancellationToken::new())
        .await;

    let expected = CompactionError::Failed {
        message: "Summarization failed: boom".into(),
        kind: Some(ErrorKind::Provider),
    };
    assert_eq!(outcome, Err(expected));
}

#[test]
fn the_summary_reaches_the_model_as_a_user_message_in_summary_tags() {
    let message = compaction_summary_message("## Goal\nX", 1_234, 1_700_000_000_000);
    assert_eq!(
        serde_json::to_value(&message).unwrap(),
        json!({"role": "compactionSummary", "summary": "## Goal\nX", "tokensBefore": 1234, "timestamp": 1_700_000_000_000_i64})
    );
    let llm = convert_to_llm(&[message, said("kept", 2)]);
    let expected_user = json!({
        "role": "user",
        "content": [{"type": "text", "text": "The conversation history before this point was compacted into the following summary:\n\n<summary>\n## Goal\nX\n</summary>"}],
        "timestamp": 1_700_000_000_000_i64,
    });
    assert_eq!(serde_json::to_value(&llm[0]).unwrap(), expected_user);
    assert_eq!(AgentMessage::from(llm[1].clone()), said("kept", 2));
}

/// Pi 1.6's `retryAssistantCall` around a summary call: a retryable failure is said, waited
/// for and tried again; the retries end with one `finished`.
#[tokio::test]
async fn a_retryable_summary_failure_is_retried_with_pis_notices() {
    let provider = FauxProvider::new().with_usage(false);
    let mut cut = faux_error(vec![], "terminated");
    cut.error_info = Some(rho_ai::ErrorInfo::new(ErrorKind::StreamCut));
    provider.push(cut);
    provider.push(rho_ai::faux::faux_message(vec![faux_text(
        "## Goal\nRetried",
    )]));
    let mut prepared = prepare_compaction(&coding_session(), &CompactionPolicy::default()).unwrap();
    prepared.is_split_turn = false;
    let notices = Mutex::new(Vec::new());
    let notify = |notice: SummaryRetryNotice| notices.lock().unwrap().push(notice);
    let model = provider.model();
    let mut summarizer = summarizer(&provider, &model);
    summarizer.retry = Some(SummaryRetry {
        policy: SummaryRetryPolicy {
            max_retries: 3,
            base_delay_ms: 1,
            max_delay_ms: 60_000,
        },
        notify: &notify,
    });

    let result = summarizer
        .compact(&prepared, None, &CancellationToken::new())
        .await
        .unwrap();

    assert!(
        result.summary.starts_with("## Goal\nRetried"),
        "{}",
        result.summary
    );
    assert_eq!(
        notices.into_inner().unwrap(),
        [
            SummaryRetryNotice::Scheduled {
                attempt: 1,
                max_attempts: 3,
                delay_ms: 1,
                error_message: "terminated".into(),
            },
            SummaryRetryNotice::AttemptStart,
            SummaryRetryNotice::Finished,
        ]
    );
    assert_eq!(
        serde_json::to_value(rho_host::SessionNotice::SummarizationRetryAttemptStart(
            SummarySource::Compaction {
                reason: rho_host::compaction::CompactionReason::Threshold
            }
        ))
        .unwrap()
        .to_string(),
        r#"{"type":"summarization_retry_attempt_start","source":"compaction","reason":"threshold"}"#
    );
    assert_eq!(
        serde_json::to_value(rho_host::SessionNotice::SummarizationRetryFinished).unwrap(),
        json!({"type": "summarization_retry_finished"})
    );
}
