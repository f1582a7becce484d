//! When a finished run calls for compaction: overflow (classified by error kind, from the
//! current model, once) or the threshold `contextWindow − reserveTokens`.

use rho_agent::AgentMessage;
use rho_ai::faux::{FauxProvider, faux_error, faux_text};
use rho_ai::{AssistantMessage, ErrorInfo, ErrorKind, Model, StopReason};
use rho_host::compaction::{
    CompactionCheck, CompactionPolicy, TriggerInput, check_compaction, is_context_overflow,
    should_compact,
};

use super::{reply, user};

fn model() -> Model {
    FauxProvider::new().model() // context window 128 000
}

fn failure(kind: ErrorKind, at: i64) -> AssistantMessage {
    let mut message = faux_error(vec![], "prompt is too long: 200000 tokens > 128000 maximum");
    message.error_info = Some(ErrorInfo::new(kind));
    message.timestamp = at;
    message
}

fn check(
    assistant: &AssistantMessage,
    messages: &[AgentMessage],
    compacted_at: Option<i64>,
    attempted: bool,
) -> CompactionCheck {
    let model = model();
    let input = TriggerInput {
        assistant,
        model: &model,
        messages,
        latest_compaction_ms: compacted_at,
        include_aborted: false,
        overflow_recovery_attempted: attempted,
    };
    check_compaction(&input, &CompactionPolicy::default())
}

#[test]
fn an_overflow_error_of_the_current_model_compacts_once_then_gives_up() {
    let overflow = failure(ErrorKind::ContextOverflow, 10);
    assert!(is_context_overflow(&overflow, 128_000));
    assert_eq!(
        check(&overflow, &[], None, false),
        CompactionCheck::Overflow
    );
    assert_eq!(
        check(&overflow, &[], None, true),
        CompactionCheck::OverflowRecoveryExhausted
    );
    assert_eq!(
        check(&overflow, &[], Some(10), false),
        CompactionCheck::None,
        "older than the compaction"
    );

    let mut other_model = overflow.clone();
    other_model.model = "bigger-model".into();
    assert_eq!(check(&other_model, &[], None, false), CompactionCheck::None);
}

#[test]
fn overflow_is_decided_by_the_error_kind_not_the_message_text() {
    // The same text, classified as an ordinary invalid request by the provider.
    let not_overflow = failure(ErrorKind::InvalidRequest, 10);
    assert!(!is_context_overflow(&not_overflow, 128_000));
    assert_eq!(
        check(&not_overflow, &[], None, false),
        CompactionCheck::None
    );
}

#[test]
fn a_reply_whose_input_exceeds_the_window_is_a_silent_overflow() {
    let mut silent = reply(vec![faux_text("ok")], 0, 1);
    silent.usage.input = 127_000;
    silent.usage.cache_read = 1_001;
    assert!(is_context_overflow(&silent, 128_000));
    let mut truncated = silent.clone();
    truncated.stop_reason = StopReason::Length;
    truncated.usage.input = 125_719; // + 1001 = 126 720 = 99 % of the window
    assert!(is_context_overflow(&truncated, 128_000));
    truncated.usage.output = 1;
    assert!(!is_context_overflow(&truncated, 128_000));
}

#[test]
fn the_threshold_is_the_window_minus_the_reserve() {
    let limit = 128_000 - 16_384;
    let at = |total| check(&reply(vec![faux_text("ok")], total, 5), &[], None, false);
    assert_eq!(
        (at(limit), at(limit + 1)),
        (CompactionCheck::None, CompactionCheck::Threshold)
    );
    assert!(!should_compact(
        limit + 1,
        128_000,
        &CompactionPolicy {
            enabled: false,
            ..CompactionPolicy::default()
        }
    ));
    assert!(
        should_compact(1, 10_000, &CompactionPolicy::default()),
        "a window smaller than the reserve"
    );
}

#[test]
fn aborted_replies_and_replies_before_the_latest_compaction_never_trigger() {
    let mut aborted = reply(vec![faux_text("ok")], 200_000, 5);
    aborted.stop_reason = StopReason::Aborted;
    assert_eq!(check(&aborted, &[], None, false), CompactionCheck::None);
    let model = model();
    let before_prompt = TriggerInput {
        assistant: &aborted,
        model: &model,
        messages: &[],
        latest_compaction_ms: None,
        include_aborted: true,
        overflow_recovery_attempted: false,
    };
    assert_eq!(
        check_compaction(&before_prompt, &CompactionPolicy::default()),
        CompactionCheck::Threshold
    );

    let big = reply(vec![faux_text("ok")], 200_000, 5);
    assert_eq!(check(&big, &[], Some(5), false), CompactionCheck::None);
}

#[test]
fn a_failed_reply_is_measured_from_the_last_good_usage_if_it_is_newer_than_the_compaction() {
    let failed = failure(ErrorKind::Overloaded, 20);
    let messages = vec![
        user("hi", 1),
        reply(vec![faux_text("ok")], 120_000, 10).into(),
        user(&"x".repeat(400), 15),
        AgentMessage::from(failed.clone()),
    ];
    assert_eq!(
        check(&failed, &messages, None, false),
        CompactionCheck::Threshold
    );
    assert_eq!(
        check(&failed, &messages, Some(5), false),
        CompactionCheck::Threshold
    );
    assert_eq!(
        check(&failed, &messages, Some(10), false),
        CompactionCheck::None,
        "stale usage"
    );
    assert_eq!(
        check(&failed, &messages[..1], None, false),
        CompactionCheck::None,
        "no usage at all"
    );
}
