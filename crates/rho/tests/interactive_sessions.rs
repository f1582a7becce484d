//! Sessions in the interactive mode, driven in `tmux` against the loopback mock provider:
//! `/resume` and `rho --resume` open the picker and continue the picked session, `/fork` starts a
//! new file branched before a user message, `/tree` moves the leaf to another branch. Every check
//! is on what the model received (request bodies) and on the session files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::interactive_support::{
    Mock, answer, entries, exchange, jsonl_files, message_text, quit, send, start_rho, transcript,
};
use crate::interactive_tmux::Tmux;

/// `RHO_HOME` with a `mock` provider serving model `a`.
fn project(mock: &Mock) -> tempfile::TempDir {
    crate::interactive_support::project(mock, json!([{"id": "a"}]), None)
}

fn open_rho(dir: &Path) -> Tmux {
    crate::interactive_support::open_rho(dir, "")
}

/// Every session file under `RHO_HOME/sessions`, sorted by name (they start with their time).
fn session_files(home: &Path) -> Vec<PathBuf> {
    jsonl_files(&home.join("sessions"))
}

/// The user and assistant texts of a session file's `message` entries, in file order.
fn file_messages(path: &Path) -> Vec<String> {
    entries(path)
        .into_iter()
        .filter(|entry| entry["type"] == "message")
        .map(|entry| {
            let message = &entry["message"];
            let text = message_text(&message["content"]);
            format!("{}: {text}", message["role"].as_str().unwrap_or(""))
        })
        .collect()
}

#[test]
fn a_session_resumed_from_the_picker_is_shown_and_carried_by_the_next_request() {
    let mock = Mock::start(vec![answer("noted apple"), answer("it was apple")]);
    let dir = project(&mock);
    let tmux = open_rho(dir.path());
    exchange(&tmux, "remember apple", "noted apple");
    quit(&tmux);

    start_rho(&tmux, "");
    tmux.wait_for("the footer", |s| s.contains("ctx ?/"));
    send(&tmux, "/resume");
    tmux.wait_for("the picker", |s| {
        s.contains("Resume Session (Current Folder)") && s.contains("remember apple")
    });
    tmux.type_text("apple");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("the resumed transcript", |s| s.contains("Resumed session"));
    assert!(screen.contains("noted apple"), "{screen}");
    exchange(&tmux, "what was it?", "it was apple");
    let bodies = mock.wait_requests(2);
    assert_eq!(
        transcript(&bodies[1]),
        [
            "user: remember apple",
            "assistant: noted apple",
            "user: what was it?"
        ]
    );
    quit(&tmux);
    let first = &session_files(dir.path())[0];
    assert_eq!(
        file_messages(first),
        [
            "system: ",
            "user: remember apple",
            "assistant: noted apple",
            "user: what was it?",
            "assistant: it was apple"
        ]
    );
}

#[test]
fn rho_resume_in_a_terminal_opens_the_picker_and_continues_the_picked_session() {
    let mock = Mock::start(vec![answer("noted pear"), answer("it was pear")]);
    let dir = project(&mock);
    let tmux = open_rho(dir.path());
    exchange(&tmux, "remember pear", "noted pear");
    quit(&tmux);

    start_rho(&tmux, "--resume");
    let picker = tmux.wait_for("the picker", |s| {
        s.contains("Resume Session (Current Folder)")
    });
    assert!(picker.contains("› remember pear"), "{picker}");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the resumed transcript", |s| s.contains("Resumed session"));
    exchange(&tmux, "and now?", "it was pear");
    let bodies = mock.wait_requests(2);
    assert_eq!(
        transcript(&bodies[1]),
        [
            "user: remember pear",
            "assistant: noted pear",
            "user: and now?"
        ]
    );
    quit(&tmux);
}

#[test]
fn fork_writes_a_new_file_holding_the_branch_before_the_picked_message() {
    let mock = Mock::start(vec![
        answer("one done"),
        answer("two done"),
        answer("two again"),
    ]);
    let dir = project(&mock);
    let tmux = open_rho(dir.path());
    exchange(&tmux, "step one", "one done");
    exchange(&tmux, "step two", "two done");
    send(&tmux, "/fork");
    let picker = tmux.wait_for("the fork picker", |s| s.contains("Fork from a message"));
    assert!(picker.contains("› step two"), "{picker}");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the fork", |s| s.contains("Forked to new session"));
    let files = session_files(dir.path());
    assert_eq!(files.len(), 2, "{files:?}");
    assert_eq!(
        file_messages(&files[1]),
        ["system: ", "user: step one", "assistant: one done"]
    );
    // The picked message is back in the editor: Enter sends it on the new branch.
    tmux.keys(&["Enter"]);
    tmux.wait_for("the answer on the fork", |s| s.contains("two again"));
    let bodies = mock.wait_requests(3);
    assert_eq!(
        transcript(&bodies[2]),
        ["user: step one", "assistant: one done", "user: step two"]
    );
    quit(&tmux);
    assert_eq!(
        file_messages(&files[1]),
        [
            "system: ",
            "user: step one",
            "assistant: one done",
            "user: step two",
            "assistant: two again"
        ]
    );
}

#[test]
fn the_tree_switches_branches_and_a_summary_of_the_branch_left_reaches_the_next_request() {
    let mock = Mock::start(vec![
        answer("base done"),
        answer("left done"),
        answer("right done"),
        answer("RIGHT-SUMMARY"),
        answer("back on left"),
    ]);
    let dir = project(&mock);
    let tmux = open_rho(dir.path());
    exchange(&tmux, "base", "base done");
    exchange(&tmux, "go left", "left done");

    // The leaf is on "left done"; one row up is the user message that started that branch.
    send(&tmux, "/tree");
    let tree = tmux.wait_for("the tree", |s| s.contains("Session Tree"));
    assert!(tree.contains("assistant: \"left done\"   "), "{tree}");
    tmux.keys(&["Up", "Enter"]);
    tmux.wait_for("the summary question", |s| {
        s.contains("Summarize branch?") && s.contains("› No summary")
    });
    tmux.keys(&["Enter"]);
    tmux.wait_for("the move", |s| s.contains("Navigated to selected point"));
    // Pi puts the picked message back in the editor; this branch asks something else.
    tmux.keys(&["C-u"]);
    exchange(&tmux, "go right", "right done");
    let bodies = mock.wait_requests(3);
    assert_eq!(
        transcript(&bodies[2]),
        ["user: base", "assistant: base done", "user: go right"]
    );

    // Back to the left branch's leaf, with a summary of the right branch.
    send(&tmux, "/tree");
    let screen = tmux.wait_for("the tree with both branches", |s| {
        s.contains("Session Tree") && s.contains("\"left done\"") && s.contains("← active")
    });
    let rows: Vec<&str> = screen.lines().collect();
    let left = rows
        .iter()
        .position(|l| l.contains("\"left done\""))
        .unwrap();
    let current = rows.iter().position(|l| l.contains("← active")).unwrap();
    for _ in left..current {
        tmux.keys(&["Up"]);
    }
    tmux.keys(&["Enter"]);
    tmux.wait_for("the summary question", |s| s.contains("Summarize branch?"));
    tmux.keys(&["Down", "Enter"]);
    // The right branch leaves the screen once the summary is written and the leaf moved.
    tmux.wait_for("the second move", |s| {
        s.contains("Navigated to selected point") && !s.contains("right done")
    });
    let bodies = mock.wait_requests(4);
    let summary_request = &bodies[3];
    assert!(
        summary_request["messages"][0]["content"]
            .as_str()
            .unwrap()
            .starts_with("You are a context summarization assistant."),
        "{summary_request}"
    );
    let asked = transcript(summary_request);
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].starts_with("user: <conversation>\n"), "{asked:?}");
    assert!(
        asked[0].contains("go right") && asked[0].contains("right done"),
        "{asked:?}"
    );
    assert!(!asked[0].contains("go left"), "{asked:?}");
    assert!(
        asked[0].ends_with("Preserve exact file paths, function names, and error messages."),
        "{asked:?}"
    );

    exchange(&tmux, "continue left", "back on left");
    let bodies = mock.wait_requests(5);
    assert_eq!(
        transcript(&bodies[4]),
        [
            "user: base",
            "assistant: base done",
            "user: go left",
            "assistant: left done",
            "user: The following is a summary of a branch that this conversation came back from:\n\n\
             <summary>\nThe user explored a different conversation branch before returning here.\n\
             Summary of that exploration:\n\nRIGHT-SUMMARY</summary>",
            "user: continue left"
        ]
    );
    quit(&tmux);
}

#[test]
fn the_tree_filters_to_the_user_messages_and_a_label_set_there_is_written_to_the_file() {
    let mock = Mock::start(vec![answer("first done"), answer("second done")]);
    let dir = project(&mock);
    let tmux = open_rho(dir.path());
    exchange(&tmux, "first step", "first done");
    exchange(&tmux, "second step", "second done");

    send(&tmux, "/tree");
    tmux.wait_for("the tree", |s| {
        s.contains("Session Tree") && s.contains("assistant: \"second done\"")
    });
    tmux.keys(&["C-u"]);
    let users = tmux.wait_for("the user messages alone", |s| {
        s.contains("Session Tree [user]")
    });
    assert!(users.contains("  user: \"first step\""), "{users}");
    // The highlight went from the leaf ("second done") to the user message above it.
    assert!(users.contains("› user: \"second step\""), "{users}");
    assert!(!users.contains("assistant:"), "{users}");

    tmux.keys(&["L"]);
    tmux.wait_for("the label input", |s| {
        s.contains("Label (empty to remove):")
    });
    tmux.type_text("checkpoint");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the label on the row", |s| {
        s.contains("› [checkpoint] user: \"second step\"") && !s.contains("Label (empty")
    });
    // The row shows the label at once, as Pi does; the file gets it when the save (off the UI
    // task) has run.
    let file = &session_files(dir.path())[0];
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut written = entries(file);
    while !written.iter().any(|e| e["type"] == "label") && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
        written = entries(file);
    }
    let target = written
        .iter()
        .find(|e| e["type"] == "message" && message_text(&e["message"]["content"]) == "second step")
        .unwrap()["id"]
        .clone();
    let labels: Vec<_> = written.iter().filter(|e| e["type"] == "label").collect();
    assert_eq!(labels.len(), 1, "{written:?}");
    assert_eq!(labels[0]["targetId"], target);
    assert_eq!(labels[0]["label"], "checkpoint");

    // Ctrl+L: the labelled entry alone.
    tmux.keys(&["C-l"]);
    let labelled = tmux.wait_for("the labelled entries", |s| {
        s.contains("Session Tree [labeled]")
    });
    assert!(
        labelled.contains("› [checkpoint] user: \"second step\""),
        "{labelled}"
    );
    assert!(!labelled.contains("first step"), "{labelled}");
    tmux.keys(&["Escape"]);
    tmux.wait_for("the tree closed", |s| !s.contains("Session Tree"));
    quit(&tmux);
}

#[test]
fn the_resume_picker_renames_one_earlier_session_and_deletes_the_other() {
    let mock = Mock::start(vec![answer("noted one"), answer("noted two")]);
    let dir = project(&mock);
    let tmux = open_rho(dir.path());
    exchange(&tmux, "first chat", "noted one");
    quit(&tmux);
    start_rho(&tmux, "");
    tmux.wait_for("the footer", |s| s.contains("ctx ?/"));
    exchange(&tmux, "second chat", "noted two");
    quit(&tmux);
    let files = session_files(dir.path());
    assert_eq!(files.len(), 2, "{files:?}");
    let (first, second) = (&files[0], &files[1]);

    start_rho(&tmux, "");
    tmux.wait_for("the footer", |s| s.contains("ctx ?/"));
    send(&tmux, "/resume");
    let picker = tmux.wait_for("the picker", |s| {
        s.contains("Resume Session (Current Folder)") && s.contains("first chat")
    });
    assert!(picker.contains("› second chat"), "{picker}");
    assert!(picker.contains("ctrl+r rename"), "{picker}");

    // Ctrl+R: the newest session gets a name, written to its file and shown in the list.
    tmux.keys(&["C-r"]);
    tmux.wait_for("the rename input", |s| s.contains("Rename Session"));
    tmux.type_text("Keeper");
    tmux.keys(&["Enter"]);
    let renamed = tmux.wait_for("the name in the list", |s| s.contains("› Keeper"));
    assert!(!renamed.contains("second chat"), "{renamed}");
    let names: Vec<_> = entries(second)
        .into_iter()
        .filter(|e| e["type"] == "session_info")
        .map(|e| e["name"].clone())
        .collect();
    assert_eq!(names, [json!("Keeper")]);

    // Ctrl+D on the other one, confirmed: its file and its row are gone.
    tmux.keys(&["Down", "C-d"]);
    tmux.wait_for("the confirmation", |s| {
        s.contains("Delete session? enter confirm")
    });
    assert!(first.exists());
    tmux.keys(&["Enter"]);
    let after = tmux.wait_for("the row gone", |s| {
        // "moved to trash" where a `trash` command is installed, as in Pi.
        !s.contains("first chat")
            && (s.contains("Session deleted") || s.contains("Session moved to trash"))
    });
    assert!(after.contains("› Keeper"), "{after}");
    assert!(!first.exists());
    assert!(second.exists());
    tmux.keys(&["Escape"]);
    tmux.wait_for("the picker closed", |s| !s.contains("Resume Session"));
    quit(&tmux);
}

#[test]
fn a_warning_while_resuming_is_shown_in_the_conversation_not_over_the_screen() {
    let mock = Mock::start(vec![answer("noted plum")]);
    let dir = project(&mock);
    let tmux = open_rho(dir.path());
    exchange(&tmux, "remember plum", "noted plum");
    quit(&tmux);
    // A crash in the middle of a write: the file ends in half a line.
    let file = &session_files(dir.path())[0];
    let mut torn = std::fs::OpenOptions::new().append(true).open(file).unwrap();
    std::io::Write::write_all(&mut torn, br#"{"type":"message","id":"dead"#).unwrap();
    drop(torn);

    start_rho(&tmux, "");
    tmux.wait_for("the footer", |s| s.contains("ctx ?/"));
    send(&tmux, "/resume");
    tmux.wait_for("the picker", |s| s.contains("remember plum"));
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("the repair warning", |s| {
        let flat: String = s.split_whitespace().collect();
        flat.contains("wascutoffbyaninterruptedwrite")
    });
    // In the conversation: after the notice and above the editor's top border (a line written
    // to the terminal instead lands wherever the cursor is, over the editor).
    let lines: Vec<&str> = screen.lines().collect();
    let at = |found: &dyn Fn(&str) -> bool| lines.iter().position(|l| found(l));
    let resumed = at(&|l| l.starts_with("Resumed session"));
    let warning = at(&|l| l.starts_with("Warning:"));
    let border = at(&|l| l.starts_with('─'));
    assert!(
        matches!((resumed, warning, border), (Some(r), Some(w), Some(b)) if r < w && w < b),
        "{screen}"
    );
    quit(&tmux);
}
