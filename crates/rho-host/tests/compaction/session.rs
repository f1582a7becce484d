//! Compaction on a real session file: the file keeps every entry, the rebuilt context is the
//! summary plus the kept messages (also after reopening), and the next compaction updates the
//! summary from the first kept entry on.

use rho_ai::ThinkingLevel;
use rho_ai::faux::{FauxProvider, faux_message, faux_text};
use rho_host::compaction::{
    CompactionPolicy, PrepareError, Summarizer, compaction_entry, compaction_summary_message,
    latest_compaction_ms, path_entries, prepare_compaction,
};
use rho_session::SessionFile;
use tokio_util::sync::CancellationToken;

use super::{chars, reply, said, user};

#[tokio::test]
async fn a_compacted_session_file_keeps_everything_and_rebuilds_the_compacted_view() {
    let dir = tempfile::tempdir().unwrap();
    let mut file = SessionFile::create(dir.path(), "/work", None).unwrap();
    file.append_model_change("faux", "faux-1").unwrap();
    let transcript = vec![
        user(&chars(400), 1),
        said(&chars(400), 2),
        user(&chars(400), 3),
        reply(vec![faux_text(chars(400))], 9_000, 4).into(),
    ];
    for message in &transcript {
        file.append_message(message.clone()).unwrap();
    }
    let provider = FauxProvider::new().with_usage(false);
    provider.push(faux_message(vec![faux_text("SUMMARY")]));
    let model = provider.model();
    let summarizer = Summarizer {
        provider: &provider,
        model: &model,
        api_key: None,
        thinking_level: ThinkingLevel::Off,
        retry: None,
    };
    let policy = CompactionPolicy {
        keep_recent_tokens: 200,
        ..CompactionPolicy::default()
    };

    let prepared = prepare_compaction(&path_entries(&file.branch_entries(None)), &policy).unwrap();
    assert_eq!(prepared.messages_to_summarize, transcript[..2].to_vec());
    let result = summarizer
        .compact(&prepared, None, &CancellationToken::new())
        .await
        .unwrap();
    file.append(compaction_entry(&result, None)).unwrap();

    let compacted_at = latest_compaction_ms(&file.branch_entries(None)).unwrap();
    let expected_view = vec![
        compaction_summary_message("SUMMARY", 9_000, compacted_at),
        transcript[2].clone(),
        transcript[3].clone(),
    ];
    assert_eq!(file.context().messages, expected_view);
    assert_eq!(
        file.entries().len(),
        6,
        "model change, four messages, the compaction"
    );
    let again = prepare_compaction(&path_entries(&file.branch_entries(None)), &policy);
    assert_eq!(again, Err(PrepareError::AlreadyCompacted));

    let path = file.path().unwrap().to_owned();
    drop(file);
    let (mut reopened, warnings) = SessionFile::open(&path).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(reopened.context().messages, expected_view);

    reopened.append_message(user(&chars(400), 10)).unwrap();
    let keep_last = CompactionPolicy {
        keep_recent_tokens: 100,
        ..policy
    };
    let next =
        prepare_compaction(&path_entries(&reopened.branch_entries(None)), &keep_last).unwrap();
    assert_eq!(next.previous_summary.as_deref(), Some("SUMMARY"));
    assert_eq!(
        next.messages_to_summarize.first(),
        Some(&transcript[2]),
        "starts at the kept entry"
    );
}
