//! The interactive mode's `/` commands and keybindings against the loopback mock provider,
//! driven in `tmux`: `/model` switches the model the next request names (and the next run's
//! default), `/compact` summarises through the model, `/export` writes the page, and
//! `keybindings.json` moves a shortcut.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use crate::interactive_support::{
    Mock, answer, entries, only_jsonl, open_rho, send, user_texts, wait_shell,
};

/// `RHO_HOME` with a `mock` provider serving models `a` and `b`.
fn project(mock: &Mock) -> tempfile::TempDir {
    crate::interactive_support::project(mock, json!([{"id": "a"}, {"id": "b"}]), None)
}

/// Leaves rho with `/quit`.
fn quit(tmux: &crate::interactive_tmux::Tmux) {
    send(tmux, "/quit");
    wait_shell(tmux, "the shell");
}

#[test]
fn a_model_picked_with_slash_model_gets_the_next_request_and_is_recorded() {
    let mock = Mock::start(vec![answer("from a"), answer("from b")]);
    let dir = project(&mock);
    let tmux = open_rho(dir.path(), "");
    send(&tmux, "first");
    tmux.wait_for("the first answer", |s| s.contains("from a"));

    send(&tmux, "/model");
    let picker = tmux.wait_for("the model picker", |s| s.contains("Search:"));
    assert!(
        picker.contains("a  [mock]") && picker.contains("b  [mock]"),
        "{picker}"
    );
    tmux.type_text("b");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the switch", |s| s.contains("Model: mock/b"));
    send(&tmux, "second");
    tmux.wait_for("the second answer", |s| s.contains("from b"));

    let bodies = mock.wait_requests(2);
    assert_eq!(
        (&bodies[0]["model"], &bodies[1]["model"]),
        (&json!("a"), &json!("b"))
    );
    quit(&tmux);
    let sessions = dir.path().join("sessions");
    let file = only_jsonl(&sessions);
    let changes: Vec<Value> = entries(&file)
        .into_iter()
        .filter(|e| e["type"] == "model_change")
        .map(|e| json!([e["provider"], e["modelId"]]))
        .collect();
    assert_eq!(changes.last(), Some(&json!(["mock", "b"])));
    // As in Pi, the picked model is the next run's default; `--model` on the command line is not.
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("settings.json")).unwrap())
            .unwrap();
    assert_eq!(
        (&settings["defaultProvider"], &settings["defaultModel"]),
        (&json!("mock"), &json!("b"))
    );
}

#[test]
fn a_model_of_another_provider_gets_its_own_endpoint_and_key() {
    let first = Mock::start(vec![answer("from mock")]);
    let second = Mock::start(vec![answer("from other")]);
    let dir = tempfile::tempdir().unwrap();
    let models = json!({"providers": {
        "mock": {"baseUrl": format!("{}/v1", first.server.base_url()),
                 "api": "openai-completions", "apiKey": "sk-one", "models": [{"id": "a"}]},
        "other": {"baseUrl": format!("{}/v1", second.server.base_url()),
                  "api": "openai-completions", "apiKey": "sk-two", "models": [{"id": "c"}]}
    }});
    std::fs::write(dir.path().join("models.json"), models.to_string()).unwrap();
    let tmux = open_rho(dir.path(), "");
    send(&tmux, "first");
    tmux.wait_for("the first answer", |s| s.contains("from mock"));
    send(&tmux, "/model");
    tmux.wait_for("the model picker", |s| s.contains("Search:"));
    tmux.type_text("c");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the switch", |s| s.contains("Model: other/c"));
    send(&tmux, "second");
    tmux.wait_for("the second answer", |s| s.contains("from other"));
    quit(&tmux);

    let (one, two) = (first.server.requests(), second.server.requests());
    assert_eq!((one.len(), two.len()), (1, 1));
    assert_eq!(one[0].header("authorization"), Some("Bearer sk-one"));
    assert_eq!(two[0].header("authorization"), Some("Bearer sk-two"));
    let body = two[0].body_json().unwrap();
    assert_eq!(body["model"], json!("c"));
    assert_eq!(user_texts(&body), ["first", "second"]);
}

#[test]
fn compact_summarises_through_the_model_and_the_next_request_starts_from_the_summary() {
    let mock = Mock::start(vec![
        answer("hello back"),
        answer("SUMMARY OF THE GREETING"),
        answer("after compaction"),
    ]);
    let dir = project(&mock);
    let tmux = open_rho(dir.path(), "--no-session");
    send(&tmux, "hello");
    tmux.wait_for("the answer", |s| s.contains("hello back"));
    send(&tmux, "/compact keep the greeting");
    tmux.wait_for("the compaction", |s| s.contains("Compacted from"));
    send(&tmux, "next");
    tmux.wait_for("the last answer", |s| s.contains("after compaction"));

    let bodies = mock.wait_requests(3);
    let asked = user_texts(&bodies[1]).join("\n");
    assert!(asked.contains("keep the greeting"), "{asked}");
    let users = user_texts(&bodies[2]);
    assert!(users[0].contains("SUMMARY OF THE GREETING"), "{users:?}");
    assert_eq!(users.last().map(String::as_str), Some("next"));
    quit(&tmux);
}

#[test]
fn export_writes_the_html_page_where_asked() {
    let mock = Mock::start(vec![answer("exported answer")]);
    let dir = project(&mock);
    let tmux = open_rho(dir.path(), "");
    send(&tmux, "export me");
    tmux.wait_for("the answer", |s| s.contains("exported answer"));
    send(&tmux, "/export page.html");
    let path = dir.path().join("page.html");
    tmux.wait_for("the export notice", |s| s.contains("Session exported to:"));
    let html = std::fs::read_to_string(&path).unwrap();
    assert!(
        html.starts_with("<!DOCTYPE html>"),
        "{}",
        &html[..80.min(html.len())]
    );
    assert!(html.contains("export me") && html.contains("exported answer"));
    quit(&tmux);
}

#[test]
fn a_shortcut_moved_in_keybindings_json_answers_to_the_new_key_only() {
    let mock = Mock::start(Vec::new());
    let dir = project(&mock);
    std::fs::write(
        dir.path().join("keybindings.json"),
        r#"{"app.model.select": "ctrl+p"}"#,
    )
    .unwrap();
    let tmux = open_rho(dir.path(), "--no-session");
    // Ctrl+L no longer opens it: the `x` typed after it lands in the editor.
    tmux.keys(&["C-l"]);
    tmux.type_text("x");
    let screen = tmux.wait_for("the typed x", |s| s.lines().any(|l| l.trim_end() == "x"));
    assert!(!screen.contains("Search:"), "{screen}");
    tmux.keys(&["C-u", "C-p"]);
    tmux.wait_for("the model picker", |s| s.contains("Search:"));
    tmux.keys(&["Escape"]);
    tmux.wait_for("the picker closed", |s| !s.contains("Search:"));
    quit(&tmux);
}

#[test]
fn a_broken_keybindings_file_is_one_warning_and_the_defaults_work() {
    let mock = Mock::start(Vec::new());
    let dir = project(&mock);
    std::fs::write(dir.path().join("keybindings.json"), "{broken").unwrap();
    let tmux = open_rho(dir.path(), "--no-session");
    tmux.wait_for("the warning", |s| {
        s.contains("Warning: keybindings.json ignored, default keys in use:")
    });
    tmux.keys(&["C-l"]);
    tmux.wait_for("the model picker", |s| s.contains("Search:"));
    tmux.keys(&["Escape"]);
    tmux.wait_for("the picker closed", |s| !s.contains("Search:"));
    quit(&tmux);
}

#[test]
fn session_shows_the_file_and_the_message_counts() {
    let mock = Mock::start(vec![answer("counted")]);
    let dir = project(&mock);
    let tmux = open_rho(dir.path(), "");
    send(&tmux, "count me");
    tmux.wait_for("the answer", |s| s.contains("counted"));
    send(&tmux, "/session");
    let panel = tmux.wait_for("the statistics", |s| s.contains("Press any key to close"));
    let file = only_jsonl(&dir.path().join("sessions"));
    // The path is wrapped at the panel's width: compare it without the borders and breaks.
    let joined: String = panel
        .lines()
        .map(|l| l.trim_matches(|c| c == '│' || c == ' '))
        .collect();
    assert!(joined.contains(&file.display().to_string()), "{panel}");
    assert!(panel.contains("User messages       1"), "{panel}");
    assert!(panel.contains("Assistant messages  1"), "{panel}");
    tmux.keys(&["Escape"]);
    tmux.wait_for("the panel closed", |s| {
        !s.contains("Press any key to close")
    });
    quit(&tmux);
}
