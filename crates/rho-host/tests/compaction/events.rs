//! `compaction_start` / `compaction_end` as Pi prints them.

use rho_ai::{ErrorKind, Usage};
use rho_host::compaction::{
    CompactionDetails, CompactionEnd, CompactionError, CompactionReason, CompactionResult,
    CompactionStart, PrepareError,
};
use serde_json::{Value, json};

fn printed(end: CompactionEnd) -> Value {
    serde_json::to_value(end).unwrap()
}

fn compacted() -> CompactionResult {
    CompactionResult {
        summary: "S".into(),
        first_kept_entry_id: "ab12cd34".into(),
        tokens_before: 190_000,
        estimated_tokens_after: 1_200,
        usage: Usage::default(),
        details: CompactionDetails {
            read_files: vec!["a.rs".into()],
            modified_files: vec![],
        },
        first_kept_index: 7,
    }
}

#[test]
fn a_successful_overflow_compaction_announces_the_retry_and_its_result() {
    assert_eq!(
        serde_json::to_value(CompactionStart {
            reason: CompactionReason::Overflow
        })
        .unwrap(),
        json!({"reason": "overflow"})
    );
    // Pi 1.6's key order (rpc-compact.new.log): estimatedTokensAfter and usage before details.
    assert_eq!(
        printed(CompactionEnd::finished(
            CompactionReason::Overflow,
            Ok(compacted())
        ))
        .to_string(),
        json!({
            "reason": "overflow",
            "result": {
                "summary": "S",
                "firstKeptEntryId": "ab12cd34",
                "tokensBefore": 190000,
                "estimatedTokensAfter": 1200,
                "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                "details": {"readFiles": ["a.rs"], "modifiedFiles": []},
            },
            "aborted": false,
            "willRetry": true,
        })
        .to_string()
    );
    assert_eq!(
        printed(CompactionEnd::finished(
            CompactionReason::Threshold,
            Ok(compacted())
        ))["willRetry"],
        json!(false)
    );
}

#[test]
fn failures_are_worded_by_reason_and_cancellation_carries_no_message() {
    let failed = CompactionError::Failed {
        message: "Summarization failed: boom".into(),
        kind: Some(ErrorKind::Server),
    };
    let ends = [
        CompactionEnd::finished(CompactionReason::Manual, Err(&failed)),
        CompactionEnd::finished(CompactionReason::Threshold, Err(&failed)),
        CompactionEnd::finished(CompactionReason::Overflow, Err(&failed)),
        CompactionEnd::finished(CompactionReason::Manual, Err(&CompactionError::Aborted)),
        CompactionEnd::finished(
            CompactionReason::Manual,
            Err(&PrepareError::AlreadyCompacted.into()),
        ),
        CompactionEnd::finished(
            CompactionReason::Threshold,
            Err(&PrepareError::NothingToCompact.into()),
        ),
        CompactionEnd::overflow_recovery_exhausted(),
    ];
    let expected = [
        json!({"reason": "manual", "aborted": false, "willRetry": false, "errorMessage": "Compaction failed: Summarization failed: boom"}),
        json!({"reason": "threshold", "aborted": false, "willRetry": false, "errorMessage": "Auto-compaction failed: Summarization failed: boom"}),
        json!({"reason": "overflow", "aborted": false, "willRetry": false, "errorMessage": "Context overflow recovery failed: Summarization failed: boom"}),
        json!({"reason": "manual", "aborted": true, "willRetry": false}),
        json!({"reason": "manual", "aborted": false, "willRetry": false, "errorMessage": "Compaction failed: Already compacted"}),
        json!({"reason": "threshold", "aborted": false, "willRetry": false}),
        json!({"reason": "overflow", "aborted": false, "willRetry": false, "errorMessage": "Context overflow recovery failed after one compact-and-retry attempt. Try reducing context or switching to a larger-context model."}),
    ];
    assert_eq!(ends.map(printed), expected);
}
