//! Cut points and preparation: `keepRecentTokens`, tool calls kept with their results, the
//! previous compaction's span and file lists.

use std::collections::BTreeSet;

use rho_agent::AgentMessage;
use rho_ai::ContentBlock;
use rho_ai::faux::faux_text;
use rho_host::compaction::{
    CompactionPolicy, CompactionPreparation, CutPoint, FileOps, PathEntryKind, PrepareError,
    compaction_summary_message, estimate_context_tokens, find_cut_point, prepare_compaction,
};
use serde_json::json;

use super::{calls, chars, entry, path_of, reply, result, said, user};

fn policy(keep_recent_tokens: u64) -> CompactionPolicy {
    CompactionPolicy {
        keep_recent_tokens,
        ..CompactionPolicy::default()
    }
}

fn cut(first_kept_index: usize, turn_start_index: Option<usize>) -> CutPoint {
    CutPoint {
        first_kept_index,
        turn_start_index,
    }
}

#[test]
fn the_cut_keeps_the_newest_messages_worth_keep_recent_tokens() {
    // Six messages of 100 tokens each (400 characters).
    let text = chars(400);
    let path = path_of(vec![
        user(&text, 1),
        said(&text, 2),
        user(&text, 3),
        said(&text, 4),
        user(&text, 5),
        said(&text, 6),
    ]);
    let at = |keep| find_cut_point(&path, 0, path.len(), keep);
    assert_eq!(
        at(200),
        cut(4, None),
        "two messages reach 200 at a user message"
    );
    assert_eq!(
        at(250),
        cut(3, Some(2)),
        "the third reaches 250 inside a turn"
    );
    assert_eq!(at(0), cut(5, Some(4)), "the newest message alone reaches 0");
    assert_eq!(
        at(10_000),
        cut(0, None),
        "never reached: keep from the first message"
    );
}

#[test]
fn a_cut_never_separates_a_tool_call_from_its_result() {
    let path = path_of(vec![
        user(&chars(400), 1),
        calls("c1", "read", json!({"path": "a.rs"}), 2),
        result("c1", "read", &chars(2000), 3),
        calls("c2", "bash", json!({"command": "ls"}), 4),
        result("c2", "bash", &chars(400), 5),
        said(&chars(400), 6),
    ]);
    // 550 is reached at the 500-token result: the cut moves on to the next assistant message.
    assert_eq!(find_cut_point(&path, 0, path.len(), 550), cut(3, Some(0)));
    for keep in 0..=1_000 {
        let first_kept = find_cut_point(&path, 0, path.len(), keep).first_kept_index;
        let kept_roles: Vec<&str> = path[first_kept..]
            .iter()
            .map(|e| match &e.kind {
                PathEntryKind::Message(m) => m.role(),
                _ => "other",
            })
            .collect();
        assert_ne!(kept_roles.first(), Some(&"toolResult"), "keep = {keep}");
        for (i, role) in kept_roles.iter().enumerate() {
            if *role == "toolResult" {
                assert_eq!(
                    kept_roles[i - 1],
                    "assistant",
                    "keep = {keep}: result kept without its call"
                );
            }
        }
    }
}

#[test]
fn settings_entries_before_the_cut_stay_with_the_kept_part_but_a_compaction_stops_them() {
    let mut path = path_of(vec![user("hi", 1), said("hello", 2)]);
    path.push(entry("m", PathEntryKind::Other));
    path.push(entry("l", PathEntryKind::Other));
    path.push(entry("u", PathEntryKind::Message(user(&chars(400), 3))));
    path.push(entry("a", PathEntryKind::Message(said("ok", 4))));
    // 100 tokens are reached at `u`; the model change and label before it come along, and as
    // the first kept entry is then not a user message, Pi treats the cut as a split turn.
    assert_eq!(find_cut_point(&path, 0, path.len(), 100), cut(2, Some(0)));

    // A compaction between the label and the model change: the cut stops after it.
    path.insert(
        3,
        entry(
            "c",
            PathEntryKind::Compaction {
                summary: "S".into(),
                first_kept_entry_id: "e0".into(),
                details: None,
                from_hook: false,
            },
        ),
    );
    assert_eq!(find_cut_point(&path, 0, path.len(), 100), cut(4, Some(0)));
}

#[test]
fn preparation_resumes_at_the_previous_kept_entry_and_carries_its_summary_and_files() {
    let mut path = path_of(vec![
        user("old", 1),
        said("old reply", 2),
        user("kept last time", 3),
        said("kept reply", 4),
    ]);
    path.push(entry(
        "c4",
        PathEntryKind::Compaction {
            summary: "PREV".into(),
            first_kept_entry_id: "e2".into(),
            details: Some(json!({"readFiles": ["r.rs"], "modifiedFiles": ["m.rs"]})),
            from_hook: false,
        },
    ));
    let newest: [AgentMessage; 4] = [
        user(&chars(400), 5),
        calls("c1", "read", json!({"path": "x.rs"}), 6),
        result("c1", "read", "x", 7),
        reply(vec![faux_text(chars(400))], 5_000, 8).into(),
    ];
    for (i, m) in newest.iter().enumerate() {
        path.push(entry(&format!("n{i}"), PathEntryKind::Message(m.clone())));
    }

    let prepared = prepare_compaction(&path, &policy(100)).unwrap();

    let set = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    let expected = CompactionPreparation {
        first_kept_entry_id: "n3".into(),
        first_kept_index: 8,
        messages_to_summarize: vec![user("kept last time", 3), said("kept reply", 4)],
        turn_prefix_messages: newest[..3].to_vec(),
        is_split_turn: true,
        // The last reply's usage; nothing follows it.
        tokens_before: 5_000,
        previous_summary: Some("PREV".into()),
        file_ops: FileOps {
            read: set(&["r.rs", "x.rs"]),
            written: set(&[]),
            edited: set(&["m.rs"]),
        },
        policy: policy(100),
    };
    assert_eq!(prepared, expected);
}

#[test]
fn there_is_nothing_to_prepare_right_after_a_compaction_or_in_an_empty_session() {
    let mut path = path_of(vec![user("a", 1), said("b", 2)]);
    path.push(entry(
        "c",
        PathEntryKind::Compaction {
            summary: "S".into(),
            first_kept_entry_id: "e1".into(),
            details: None,
            from_hook: false,
        },
    ));
    let errors = [
        prepare_compaction(&path, &policy(1)).unwrap_err(),
        prepare_compaction(&[], &policy(1)).unwrap_err(),
    ];
    assert_eq!(
        errors,
        [
            PrepareError::AlreadyCompacted,
            PrepareError::NothingToCompact
        ]
    );
    assert_eq!(
        errors.map(|e| e.to_string()),
        [
            "Already compacted",
            "Nothing to compact (session too small)"
        ]
    );
}

#[test]
fn the_context_estimate_is_the_last_good_usage_plus_a_quarter_of_the_later_characters() {
    let image = ContentBlock::Image(rho_ai::ImageContent {
        data: "AAAA".into(),
        mime_type: "image/png".into(),
    });
    let mut with_image = result("c1", "read", "abcd", 4);
    if let AgentMessage::Llm(rho_ai::Message::ToolResult(r)) = &mut with_image {
        std::sync::Arc::make_mut(r).content.push(image);
    }
    let messages = vec![
        user(&chars(400), 1),
        reply(vec![faux_text("hi")], 1_000, 2).into(),
        user(&chars(40), 3),
        with_image,
        rho_ai::faux::faux_error(vec![faux_text("abcd")], "boom").into(),
        compaction_summary_message(&chars(8), 1, 5),
    ];
    let estimate = estimate_context_tokens(&messages);
    // 1000 + 10 (40 chars) + 1201 (4 chars + an image's 4800) + 1 (failed reply) + 2 (summary).
    assert_eq!(
        (
            estimate.tokens,
            estimate.usage_tokens,
            estimate.trailing_tokens,
            estimate.last_usage_index
        ),
        (2_214, 1_000, 1_214, Some(1))
    );
    assert_eq!(
        estimate_context_tokens(&messages[..1]).tokens,
        100,
        "no usage: all estimated"
    );
}
