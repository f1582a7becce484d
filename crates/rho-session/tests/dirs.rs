//! Session directories: naming, listing, `--continue`, `--session <id prefix>`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_session::{SessionDir, SessionFile, encode_cwd, list_sessions, most_recent_session};

use crate::round_trip::{assistant, user};

#[test]
fn a_cwd_is_encoded_as_pi_names_its_directory() {
    assert_eq!(encode_cwd("/home/u/proj"), "--home-u-proj--");
    assert_eq!(encode_cwd("C:\\Users\\u\\proj"), "--C--Users-u-proj--");
    assert_eq!(encode_cwd("/"), "----");
    let home = std::path::Path::new("/h/.rho");
    assert_eq!(
        SessionDir::new(home).for_cwd("/home/u/proj"),
        std::path::PathBuf::from("/h/.rho/sessions/--home-u-proj--")
    );
}

#[test]
fn a_new_session_file_is_named_by_its_timestamp_and_id() {
    let home = tempfile::tempdir().unwrap();
    let dir = SessionDir::new(home.path()).for_cwd("/home/u/proj");
    let s = SessionFile::create(&dir, "/home/u/proj", None).unwrap();
    let name = s
        .path()
        .unwrap()
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    let stamp = s.header().timestamp.replace([':', '.'], "-");
    assert_eq!(name, format!("{stamp}_{}.jsonl", s.session_id()));
    assert_eq!(s.path().unwrap().parent().unwrap(), dir);
    assert_eq!(s.session_id().len(), 36);
    assert_eq!(&s.session_id()[14..15], "7");
}

#[test]
fn listing_shows_names_first_messages_and_counts_newest_first() {
    let home = tempfile::tempdir().unwrap();
    let sessions = SessionDir::new(home.path());
    let dir = sessions.for_cwd("/p");
    let mut older = SessionFile::create(&dir, "/p", None).unwrap();
    older.append_message(user("first question")).unwrap();
    let mut newer = SessionFile::create(&dir, "/p", None).unwrap();
    newer.append_message(user("second question")).unwrap();
    let mut late = assistant("answer");
    if let rho_ai::AgentMessage::Llm(rho_ai::Message::Assistant(a)) = &mut late {
        std::sync::Arc::make_mut(a).timestamp = 1_900_000_000_000;
    }
    newer.append_message(late).unwrap();
    newer.append_session_info("Named").unwrap();
    std::fs::write(dir.join("junk.jsonl"), "not json\n").unwrap();

    let list = list_sessions(&dir);
    let summary: Vec<_> = list
        .iter()
        .map(|s| {
            (
                s.id.clone(),
                s.name.clone(),
                s.first_message.clone(),
                s.message_count,
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                newer.session_id().to_owned(),
                Some("Named".to_owned()),
                "second question".to_owned(),
                2
            ),
            (
                older.session_id().to_owned(),
                None,
                "first question".to_owned(),
                1
            ),
        ]
    );
    assert_eq!(list[0].path, newer.path().unwrap());
    assert_eq!(list[0].cwd, "/p");
}

#[test]
fn continue_picks_the_most_recently_modified_session() {
    let home = tempfile::tempdir().unwrap();
    let dir = SessionDir::new(home.path()).for_cwd("/p");
    assert_eq!(most_recent_session(&dir), None);
    let a = SessionFile::create(&dir, "/p", None).unwrap();
    let b = SessionFile::create(&dir, "/p", None).unwrap();
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
    std::fs::File::options()
        .write(true)
        .open(b.path().unwrap())
        .unwrap()
        .set_modified(old)
        .unwrap();
    std::fs::write(dir.join("z-not-a-session.jsonl"), "{}\n").unwrap();
    assert_eq!(
        most_recent_session(&dir).as_deref(),
        Some(a.path().unwrap())
    );
}

#[test]
fn an_id_prefix_is_found_locally_first_then_in_any_directory() {
    let home = tempfile::tempdir().unwrap();
    let sessions = SessionDir::new(home.path());
    let here = SessionFile::create(&sessions.for_cwd("/here"), "/here", None).unwrap();
    let there = SessionFile::create(&sessions.for_cwd("/there"), "/there", None).unwrap();
    let local = sessions.for_cwd("/here");
    // Ids made in the same millisecond share their time prefix; cut the random tail instead.
    let prefix = |id: &str| id[..id.len() - 4].to_owned();
    let found = sessions
        .find_by_id_prefix(&local, &prefix(there.session_id()))
        .unwrap();
    assert_eq!(
        (found.path.as_path(), found.cwd.as_str()),
        (there.path().unwrap(), "/there")
    );
    let found = sessions
        .find_by_id_prefix(&local, &prefix(here.session_id()))
        .unwrap();
    assert_eq!(found.path, here.path().unwrap());
    assert_eq!(sessions.find_by_id_prefix(&local, "ffffffff-none"), None);
}
