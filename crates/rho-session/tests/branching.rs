//! Branches inside a file and forks into new files.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_session::{EntryKind, SessionError, SessionFile};
use serde_json::Value;

use crate::round_trip::{assistant, lines, user};

#[test]
fn appending_under_an_earlier_entry_starts_a_branch_with_its_own_context() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionFile::create(dir.path(), "/p", None).unwrap();
    let u1 = s.append_message(user("one")).unwrap();
    let a1 = s.append_message(assistant("two")).unwrap();
    let old = s.append_message(user("three")).unwrap();
    let new = s
        .append_with_parent(Some(&a1), EntryKind::message(user("other")))
        .unwrap();
    assert_eq!(s.leaf_id(), Some(new.as_str()));
    assert_eq!(
        s.context().messages,
        vec![user("one"), assistant("two"), user("other")]
    );
    assert_eq!(
        s.context_at(&old).messages,
        vec![user("one"), assistant("two"), user("three")]
    );
    assert_eq!(s.children(Some(&a1)).len(), 2);

    s.branch(&u1).unwrap();
    let summary = s
        .branch_with_summary(Some(&u1), "left the branch", None, None, None)
        .unwrap();
    let context = s.context();
    assert_eq!(context.messages.len(), 2);
    assert_eq!(
        serde_json::to_value(&context.messages[1]).unwrap()["summary"],
        "left the branch"
    );
    assert_eq!(
        s.entry(&summary).unwrap().parent_id.as_deref(),
        Some(u1.as_str())
    );

    s.reset_leaf();
    assert_eq!(s.context().messages, vec![]);
    let root = s.append_message(user("fresh root")).unwrap();
    assert_eq!(s.entry(&root).unwrap().parent_id, None);

    assert!(matches!(
        s.branch("nope0000"),
        Err(SessionError::EntryNotFound { .. })
    ));
    assert!(matches!(
        s.append_label_change("nope0000", Some("x")),
        Err(SessionError::EntryNotFound { .. })
    ));
}

#[test]
fn forking_copies_the_root_to_leaf_path_and_its_labels_into_a_new_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionFile::create(dir.path(), "/p", None).unwrap();
    s.append_model_change("anthropic", "claude-sonnet-4-5")
        .unwrap();
    let u1 = s.append_message(user("one")).unwrap();
    let a1 = s.append_message(assistant("two")).unwrap();
    s.append_message(user("abandoned")).unwrap();
    s.append_label_change(&u1, Some("start")).unwrap();
    s.append_session_info("  my session ").unwrap();
    assert_eq!(s.session_name().as_deref(), Some("my session"));

    let fork = s.fork_from(&a1).unwrap();
    assert_ne!(fork.session_id(), s.session_id());
    assert_eq!(fork.path().unwrap().parent(), s.path().unwrap().parent());
    assert_eq!(
        fork.header().parent_session.as_deref(),
        Some(s.path().unwrap().to_str().unwrap())
    );
    assert_eq!(fork.context().messages, vec![user("one"), assistant("two")]);
    assert_eq!(fork.label(&u1).as_deref(), Some("start"));

    let source = std::fs::read_to_string(s.path().unwrap()).unwrap();
    let copied = std::fs::read_to_string(fork.path().unwrap()).unwrap();
    let source_lines: Vec<&str> = source.lines().collect();
    let copied_lines: Vec<&str> = copied.lines().collect();
    // Entries are copied byte for byte: model change, user, assistant; then the re-created label.
    assert_eq!(copied_lines[1..4], source_lines[1..4]);
    let label: Value = serde_json::from_str(copied_lines[4]).unwrap();
    assert_eq!(label["targetId"], Value::from(u1));
    assert_eq!(label["parentId"], Value::from(a1));
    assert_eq!(copied_lines.len(), 5);
}

#[test]
fn fork_file_copies_every_entry_of_another_session_for_a_new_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionFile::create(&dir.path().join("a"), "/old", None).unwrap();
    s.append_message(user("one")).unwrap();
    s.append_message(assistant("two")).unwrap();
    let (fork, warnings) =
        SessionFile::fork_file(s.path().unwrap(), &dir.path().join("b"), "/new").unwrap();
    assert_eq!(warnings, vec![]);
    assert_eq!(fork.header().cwd, "/new");
    assert_eq!(fork.entries(), s.entries());
    let written = lines(fork.path().unwrap());
    assert_eq!(
        written[0]["parentSession"],
        Value::from(s.path().unwrap().to_str().unwrap())
    );
}

#[test]
fn the_latest_compaction_is_the_nearest_one_up_the_current_branch() {
    let compaction = |first_kept: &str| EntryKind::Compaction {
        summary: "S".to_owned(),
        first_kept_entry_id: first_kept.to_owned(),
        tokens_before: 1,
        details: None,
        usage: None,
        from_hook: None,
        system_message: None,
    };
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionFile::create(dir.path(), "/p", None).unwrap();
    let u1 = s.append_message(user("one")).unwrap();
    assert_eq!(s.latest_compaction_ms(), None);
    let first = s.append(compaction(&u1)).unwrap();
    s.append_message(user("two")).unwrap();
    let at = |s: &SessionFile, id: &str| {
        let stamp = &s.entry(id).unwrap().timestamp;
        chrono::DateTime::parse_from_rfc3339(stamp)
            .unwrap()
            .timestamp_millis()
    };
    assert_eq!(s.latest_compaction_ms(), Some(at(&s, &first)));
    // A second compaction on another branch is not this branch's.
    s.append_with_parent(Some(&u1), EntryKind::message(user("other")))
        .unwrap();
    assert_eq!(s.latest_compaction_ms(), None);
    let second = s.append(compaction(&u1)).unwrap();
    assert_eq!(s.latest_compaction_ms(), Some(at(&s, &second)));
    s.branch(&first).unwrap();
    assert_eq!(s.latest_compaction_ms(), Some(at(&s, &first)));
}
