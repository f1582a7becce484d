//! Crash damage, bad lines, and the one-writer lock.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_session::{OpenWarning, SessionError, SessionFile};

use crate::round_trip::{assistant, user};

fn session_with_two_messages(dir: &std::path::Path) -> std::path::PathBuf {
    let mut s = SessionFile::create(dir, "/p", None).unwrap();
    s.append_message(user("one")).unwrap();
    s.append_message(assistant("two")).unwrap();
    s.path().unwrap().to_path_buf()
}

#[test]
fn a_torn_last_line_is_reported_once_and_cut_before_the_next_append() {
    let dir = tempfile::tempdir().unwrap();
    let path = session_with_two_messages(dir.path());
    let whole = std::fs::read(&path).unwrap();
    let torn = br#"{"type":"message","id":"deadbeef","parentId":nu"#;
    let mut damaged = whole.clone();
    damaged.extend_from_slice(torn);
    std::fs::write(&path, &damaged).unwrap();

    let (mut session, warnings) = SessionFile::open(&path).unwrap();
    assert_eq!(
        warnings,
        vec![OpenWarning::TornLastLine {
            line: 4,
            bytes: torn.len()
        }]
    );
    assert_eq!(std::fs::read(&path).unwrap(), whole);
    assert_eq!(
        session.context().messages,
        vec![user("one"), assistant("two")]
    );
    session.append_message(user("three")).unwrap();
    drop(session);

    let (session, warnings) = SessionFile::open(&path).unwrap();
    assert_eq!(warnings, vec![]);
    assert_eq!(
        session.context().messages,
        vec![user("one"), assistant("two"), user("three")]
    );
}

#[test]
fn a_whole_last_line_without_its_newline_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = session_with_two_messages(dir.path());
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.pop();
    std::fs::write(&path, &bytes).unwrap();
    let (mut session, warnings) = SessionFile::open(&path).unwrap();
    assert_eq!(warnings, vec![]);
    session.append_message(user("three")).unwrap();
    drop(session);
    let (session, warnings) = SessionFile::open(&path).unwrap();
    assert_eq!(warnings, vec![]);
    assert_eq!(session.entries().len(), 3);
}

#[test]
fn a_malformed_line_in_the_middle_is_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = session_with_two_messages(dir.path());
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(2, "{this is not json");
    lines.insert(
        3,
        r#"{"type":"message","message":{"role":"user","content":"no id"}}"#,
    );
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let (session, warnings) = SessionFile::open(&path).unwrap();
    assert_eq!(warnings.len(), 2);
    assert!(matches!(
        &warnings[0],
        OpenWarning::MalformedLine { line: 3, .. }
    ));
    assert_eq!(
        warnings[1],
        OpenWarning::MalformedLine {
            line: 4,
            reason: "entry has no \"id\"".into()
        }
    );
    assert_eq!(
        session.context().messages,
        vec![user("one"), assistant("two")]
    );
    // Skipped lines stay on disk: nothing the user wrote is destroyed.
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("{this is not json")
    );
}

#[test]
fn a_second_writer_is_refused_while_the_first_holds_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = session_with_two_messages(dir.path());
    let (first, _) = SessionFile::open(&path).unwrap();
    let second = SessionFile::open(&path).unwrap_err();
    assert!(matches!(&second, SessionError::Locked { path: p } if *p == path));
    assert_eq!(
        second.to_string(),
        format!(
            "session file {} is in use by another rho process",
            path.display()
        )
    );
    drop(first);
    assert!(SessionFile::open(&path).is_ok());
}

#[test]
fn an_empty_file_gets_a_fresh_header_and_a_foreign_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let (session, warnings) = SessionFile::open(&empty).unwrap();
    assert_eq!(warnings, vec![]);
    let header: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&empty).unwrap().trim_end()).unwrap();
    assert_eq!(header["id"], session.session_id());
    assert_eq!(header["version"], 3);

    let foreign = dir.path().join("notes.jsonl");
    std::fs::write(&foreign, "{\"hello\":1}\n").unwrap();
    assert!(matches!(
        SessionFile::open(&foreign),
        Err(SessionError::NotASessionFile { .. })
    ));
    assert_eq!(
        std::fs::read_to_string(&foreign).unwrap(),
        "{\"hello\":1}\n"
    );
}

#[test]
fn garbage_bytes_never_panic_the_reader() {
    let dir = tempfile::tempdir().unwrap();
    let path = session_with_two_messages(dir.path());
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(b"\xff\xfe\x00{\"type\":1}\n[1,2]\n\"str\"\n{\"type\":\"message\",\"id\":\"x\",\"message\":{\"role\":7}}\n");
    std::fs::write(&path, &bytes).unwrap();
    let (session, warnings) = SessionFile::open(&path).unwrap();
    assert_eq!(warnings.len(), 3);
    // The message without a usable role is kept as an entry, not dropped; it is reported only
    // when a context needs it.
    assert_eq!(session.entries().len(), 3);
}

#[test]
fn another_process_sees_the_lock_until_the_session_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let path = session_with_two_messages(dir.path());
    // util-linux `flock -n` takes the same flock(2) lock from a separate process.
    let try_lock = || {
        std::process::Command::new("flock")
            .args(["-n", "-E", "75"])
            .arg(&path)
            .arg("true")
            .status()
            .unwrap()
            .code()
    };
    let (session, _) = SessionFile::open(&path).unwrap();
    assert_eq!(try_lock(), Some(75));
    drop(session);
    assert_eq!(try_lock(), Some(0));
}
