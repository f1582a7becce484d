//! What the interactive mode keeps, driven in `tmux`: `/settings` changes go to the global
//! `RHO_HOME/settings.json` (every other key kept, a broken file left alone), and `/model` to
//! a model without reasoning records the thinking level it falls to, as RPC `set_model` does;
//! and the `auto` theme follows the background the terminal reports (OSC 11).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use rho_testkit::{MockResponse, MockServer};
use serde_json::{Value, json};

use crate::interactive_tmux::{Tmux, last_line};

fn answer(text: &str) -> MockResponse {
    let chunk = json!({"id": "c", "model": "m",
        "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]});
    MockResponse::sse(&[&chunk.to_string(), "[DONE]"])
}

/// `RHO_HOME` (the tmux shell's `HOME`) with a `mock` provider at `base_url` serving `a`, which
/// reasons, and `b`, which does not.
fn home(base_url: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{base_url}/v1"),
        "api": "openai-completions",
        "apiKey": "sk-test",
        "models": [{"id": "a", "reasoning": true}, {"id": "b"}]
    }}});
    std::fs::write(dir.path().join("models.json"), models.to_string()).unwrap();
    dir
}

fn open_rho(dir: &Path, flags: &str) -> Tmux {
    let tmux = Tmux::start(dir);
    tmux.wait_for("the shell prompt", |s| last_line(s).starts_with("PROMPT$"));
    let rho = env!("CARGO_BIN_EXE_rho");
    tmux.type_text(&format!("{rho} --model mock/a {flags}"));
    tmux.keys(&["Enter"]);
    tmux.wait_for("the footer", |s| s.contains("ctx ?/"));
    tmux
}

fn send(tmux: &Tmux, text: &str) {
    tmux.type_text(text);
    tmux.keys(&["Enter"]);
}

fn quit(tmux: &Tmux) {
    send(tmux, "/quit");
    tmux.wait_for("the shell", |s| last_line(s).starts_with("PROMPT$"));
}

#[test]
fn settings_changes_apply_now_and_are_kept_in_the_global_file_with_its_other_keys() {
    let dir = home("http://127.0.0.1:9");
    let settings = dir.path().join("settings.json");
    std::fs::write(
        &settings,
        r#"{"compaction": {"reserveTokens": 8192}, "retry": {"maxRetries": 2}, "x-note": "kept"}"#,
    )
    .unwrap();
    let tmux = open_rho(dir.path(), "--no-session");
    tmux.wait_for("the starting level", |s| s.contains("a • medium"));
    send(&tmux, "/settings thinking high");
    tmux.wait_for("the new level in the footer", |s| s.contains("a • high"));
    send(&tmux, "/settings auto-compaction off");
    tmux.wait_for("the compaction notice", |s| {
        s.contains("Auto-compaction: off")
    });
    send(&tmux, "/settings theme light");
    tmux.wait_for("the theme notice", |s| s.contains("Theme: light"));
    send(&tmux, "/settings");
    let panel = tmux.wait_for("the settings panel", |s| s.contains("theme (setting)"));
    let row = |name: &str| {
        panel.lines().find(|l| l.contains(name)).map(|l| {
            let inside = l.trim().trim_matches('│');
            inside.split_whitespace().last().unwrap_or("").to_owned()
        })
    };
    assert_eq!(
        (row("auto-compaction"), row("theme (setting)")),
        (Some("off".to_owned()), Some("light".to_owned())),
        "{panel}"
    );
    tmux.keys(&["Escape"]);
    // Keys typed while the panel is still up would go to it.
    tmux.wait_for("the panel closed", |s| !s.contains("theme (setting)"));
    quit(&tmux);

    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        r#"{
  "compaction": {
    "reserveTokens": 8192,
    "enabled": false
  },
  "retry": {
    "maxRetries": 2
  },
  "x-note": "kept",
  "defaultThinkingLevel": "high",
  "theme": "light"
}"#
    );
}

#[test]
fn a_settings_file_broken_while_running_is_left_untouched_and_the_error_shown() {
    let dir = home("http://127.0.0.1:9");
    let tmux = open_rho(dir.path(), "--no-session");
    let settings = dir.path().join("settings.json");
    let broken = "{\"theme\": \"dark\",";
    std::fs::write(&settings, broken).unwrap();
    send(&tmux, "/settings theme light");
    tmux.wait_for("the error", |s| {
        s.contains("settings.json is not valid JSON, setting not saved")
    });
    quit(&tmux);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), broken);
}

#[test]
fn a_model_without_reasoning_records_the_thinking_level_it_falls_to() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = runtime.block_on(MockServer::start(vec![answer("from a")]));
    let dir = home(&server.base_url());
    let tmux = open_rho(dir.path(), "");
    send(&tmux, "first");
    tmux.wait_for("the answer", |s| s.contains("from a"));
    send(&tmux, "/model");
    tmux.wait_for("the model picker", |s| s.contains("Search:"));
    tmux.type_text("b");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the switch", |s| s.contains("Model: mock/b"));
    quit(&tmux);

    let file = session_file(&dir.path().join("sessions"));
    let changes: Vec<Value> = std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter_map(|e| match e["type"].as_str() {
            Some("model_change") => Some(json!(["model", e["provider"], e["modelId"]])),
            Some("thinking_level_change") => Some(json!(["thinking", e["thinkingLevel"]])),
            _ => None,
        })
        .collect();
    assert_eq!(
        changes,
        [
            json!(["model", "mock", "a"]),
            json!(["thinking", "medium"]),
            json!(["model", "mock", "b"]),
            json!(["thinking", "off"]),
        ]
    );
}

/// The one session file under `dir`.
fn session_file(dir: &Path) -> std::path::PathBuf {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                found.push(path);
            }
        }
    }
    assert_eq!(found.len(), 1, "{found:?}");
    found.remove(0)
}

/// The screen with its colours, once rho has drawn its footer in a pane whose background is
/// `background` (what tmux answers to OSC 11), with `theme` as the setting.
fn coloured_screen(background: &str, theme: Option<&str>) -> String {
    let dir = home("http://127.0.0.1:9");
    if let Some(theme) = theme {
        let settings = json!({ "theme": theme }).to_string();
        std::fs::write(dir.path().join("settings.json"), settings).unwrap();
    }
    let tmux = Tmux::start(dir.path());
    tmux.run(&[
        "set-option",
        "-g",
        "window-style",
        &format!("bg={background}"),
    ]);
    tmux.wait_for("the shell prompt", |s| last_line(s).starts_with("PROMPT$"));
    tmux.type_text(&format!("{} --model mock/a", env!("CARGO_BIN_EXE_rho")));
    tmux.keys(&["Enter"]);
    tmux.wait_for("the footer", |s| s.contains("ctx ?/"));
    // The `/` popup, whose highlighted command is drawn in cyan.
    tmux.type_text("/");
    tmux.wait_for("the command popup", |s| s.contains("/model"));
    let screen = tmux.run(&["capture-pane", "-p", "-e", "-t", "0"]).stdout;
    tmux.keys(&["Escape", "C-u"]);
    quit(&tmux);
    String::from_utf8(screen).unwrap()
}

#[test]
fn the_background_the_terminal_reports_picks_the_theme_unless_one_is_set() {
    // The highlight: cyan (palette colour 6, which tmux writes as `38;5;6`) on a dark screen,
    // the light theme's darker teal on a white one.
    let dark = |screen: &str| screen.contains("38;5;6m");
    let light = |screen: &str| screen.contains("38;2;0;107;143");
    let on_white = coloured_screen("#ffffff", None);
    assert!(light(&on_white) && !dark(&on_white), "{on_white:?}");
    let on_black = coloured_screen("#000000", None);
    assert!(dark(&on_black) && !light(&on_black), "{on_black:?}");
    let chosen = coloured_screen("#ffffff", Some("dark"));
    assert!(dark(&chosen) && !light(&chosen), "{chosen:?}");
}
