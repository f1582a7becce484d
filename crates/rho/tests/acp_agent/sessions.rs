//! Sessions: loaded from a file another mode wrote, rebuilt in another permission mode, and
//! the project's trust asked of the client.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    ContentBlock, EnvVariable, McpServer, McpServerStdio, PermissionOptionKind,
    SessionConfigOption, SessionUpdate, StopReason, ToolCallStatus,
};
use serde_json::json;

use super::client::{
    Answers, Flow, call, connect, delete_session, first_end, list_sessions, sign_in_flow,
    switch_option, text, workspace, write_session,
};

#[test]
fn a_session_written_by_rho_p_is_loaded_as_its_updates_and_goes_on() {
    let ws = workspace(json!([
        [call("read", json!({"path": "a.txt"}))],
        [{"type": "thinking", "text": "it says alpha"}, {"type": "text", "text": "It says alpha."}]
    ]));
    std::fs::write(ws.project.join("a.txt"), "alpha\n").unwrap();
    let id = write_session(&ws, "what does a.txt say?");
    let next = json!({"turns": [[{"type": "text", "text": "Still alpha."}]]});
    std::fs::write(&ws.script, next.to_string()).unwrap();

    let (updates, _, stop) = connect(
        &ws,
        Flow::Load(id, text("and now?")),
        Answers::default(),
        false,
    );
    assert_eq!(stop, StopReason::EndTurn);
    let chunk = |label: &str, block: &ContentBlock| match block {
        ContentBlock::Text(t) => Some(format!("{label}: {}", t.text)),
        _ => None,
    };
    let told: Vec<String> = updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::UserMessageChunk(c) => chunk("user", &c.content),
            SessionUpdate::AgentMessageChunk(c) => chunk("agent", &c.content),
            SessionUpdate::AgentThoughtChunk(c) => chunk("thought", &c.content),
            SessionUpdate::ToolCall(call) => Some(format!("call: {}", call.title)),
            SessionUpdate::ToolCallUpdate(update) => {
                update.fields.status.map(|s| format!("end: {s:?}"))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        told,
        [
            "user: what does a.txt say?",
            "call: Read a.txt",
            "end: Completed",
            "thought: it says alpha",
            "agent: It says alpha.",
            "agent: Still alpha."
        ]
    );
    // One file, grown by the new prompt.
    let dir = std::fs::read_dir(ws.home.join("sessions"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let files: Vec<PathBuf> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(text.contains("and now?") && text.contains("Still alpha."));
}

#[test]
fn a_session_switched_to_read_only_refuses_a_write_and_says_its_mode() {
    let ws = workspace(json!([
        [call("write", json!({"path": "new.txt", "content": "x"}))],
        [{"type": "text", "text": "done"}]
    ]));
    let (updates, _, stop) = connect(
        &ws,
        Flow::Mode("read-only", text("write it")),
        Answers::default(),
        false,
    );
    assert_eq!(stop, StopReason::EndTurn);
    assert!(updates.iter().any(|u| matches!(
        u,
        SessionUpdate::CurrentModeUpdate(m) if m.current_mode_id.0.as_ref() == "read-only"
    )));
    let failed = updates.iter().any(|u| {
        matches!(
            u,
            SessionUpdate::ToolCallUpdate(update)
                if update.fields.status == Some(ToolCallStatus::Failed)
        )
    });
    assert!(failed, "{updates:?}");
    assert!(!ws.project.join("new.txt").exists());
}

#[test]
fn an_undecided_projects_trust_is_asked_of_the_client_and_the_answer_holds() {
    for (answer, refused) in [
        (PermissionOptionKind::AllowOnce, true),
        (PermissionOptionKind::RejectOnce, false),
    ] {
        let ws = workspace(json!([
            [call("bash", json!({"command": "echo hi"}))],
            [{"type": "text", "text": "done"}]
        ]));
        let dot = ws.project.join(".rho");
        std::fs::create_dir_all(&dot).unwrap();
        std::fs::write(
            dot.join("rules.toml"),
            "[[rule]]\ndecision = \"deny\"\nprefix = \"echo\"\n",
        )
        .unwrap();
        let answers: Answers = Arc::new(Mutex::new(vec![answer]));
        let (updates, asked, _) = connect(&ws, Flow::Prompt(text("go")), answers, false);
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0].tool_call.tool_call_id.0.as_ref(), "trust");
        let title = asked[0].tool_call.fields.title.clone().unwrap_or_default();
        assert!(title.starts_with("Trust the project "), "{title}");
        assert_eq!(asked[0].options.len(), 5);
        // Trusted, the project's deny rule refuses the command; untrusted, it runs.
        let failed = updates.iter().any(|u| {
            matches!(
                u,
                SessionUpdate::ToolCallUpdate(update)
                    if update.fields.status == Some(ToolCallStatus::Failed)
            )
        });
        assert_eq!(failed, refused, "{answer:?}: {updates:?}");
        // "this session only" records nothing.
        assert!(!ws.home.join("trust.json").exists());
    }
}

#[test]
fn an_mcp_server_the_client_names_is_connected_and_its_tool_runs() {
    let ws = workspace(json!([
        [call("mcp__demo__echo", json!({"text": "hi"}))],
        [{"type": "text", "text": "done"}]
    ]));
    let scripted = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../rho-mcp/tests/servers/scripted.py");
    let server = McpServer::Stdio(
        McpServerStdio::new("demo", "python3")
            .args(vec![
                scripted.display().to_string(),
                "--no-resources".to_owned(),
            ])
            .env(vec![EnvVariable::new("NOT_EXPANDED", "!echo run")]),
    );
    let (updates, _, stop) = connect(
        &ws,
        Flow::Servers(vec![server], text("echo")),
        Answers::default(),
        false,
    );
    assert_eq!(stop, StopReason::EndTurn);
    let ended = first_end(&updates);
    assert_eq!(
        ended.fields.status,
        Some(ToolCallStatus::Completed),
        "{ended:?}"
    );
    let content = format!("{:?}", ended.fields.content);
    assert!(content.contains("echo: hi"), "{content}");
}

#[test]
fn the_projects_sessions_are_listed_newest_first_with_their_first_message() {
    let ws = workspace(json!([
        [{"type": "text", "text": "one"}],
        [{"type": "text", "text": "two"}]
    ]));
    for prompt in ["first question", "second question"] {
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_rho"))
            .current_dir(&ws.project)
            .env("RHO_HOME", &ws.home)
            .env("HOME", &ws.home)
            .args(["-p", "--faux-script"])
            .arg(&ws.script)
            .arg(prompt)
            .output()
            .unwrap()
            .status;
        assert!(status.success());
    }
    let listed = list_sessions(&ws);
    let titles: Vec<Option<String>> = listed.sessions.iter().map(|s| s.title.clone()).collect();
    assert_eq!(
        titles,
        [
            Some("second question".to_owned()),
            Some("first question".to_owned())
        ]
    );
    assert!(listed.sessions.iter().all(|s| s.cwd == ws.project));
    assert!(listed.next_cursor.is_none());
}

/// `(id, current value, the values offered)` of each option.
fn shown(options: &[SessionConfigOption]) -> Vec<(String, String, Vec<String>)> {
    options
        .iter()
        .map(|option| {
            let json = serde_json::to_value(option).unwrap();
            let values = json["options"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|o| o["value"].as_str().map(str::to_owned))
                .collect();
            (
                json["id"].as_str().unwrap_or_default().to_owned(),
                json["currentValue"].as_str().unwrap_or_default().to_owned(),
                values,
            )
        })
        .collect()
}

#[test]
fn the_model_and_thinking_level_are_options_the_client_sets() {
    let ws = workspace(json!([]));
    let models = json!({"providers": {"mock": {
        "baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "sk-test",
        "models": [{"id": "a", "name": "Model A"}, {"id": "b", "name": "Model B", "reasoning": true}]
    }}});
    std::fs::write(ws.home.join("models.json"), models.to_string()).unwrap();
    std::fs::write(
        ws.home.join("settings.json"),
        json!({"defaultProvider": "mock", "defaultModel": "a"}).to_string(),
    )
    .unwrap();
    let (before, after) = switch_option(&ws, "model", "mock/b");
    let before = shown(&before);
    assert_eq!(
        before.len(),
        1,
        "no thinking level for a model that does not reason"
    );
    assert_eq!(before[0].0, "model");
    assert_eq!(before[0].1, "mock/a");
    assert!(before[0].2.contains(&"mock/b".to_owned()), "{before:?}");
    let after = shown(&after);
    assert_eq!(after[0].1, "mock/b");
    assert_eq!(after[1].0, "thinking", "{after:?}");

    let (_, thinking) = {
        std::fs::write(
            ws.home.join("settings.json"),
            json!({"defaultProvider": "mock", "defaultModel": "b"}).to_string(),
        )
        .unwrap();
        switch_option(&ws, "thinking", "high")
    };
    assert_eq!(shown(&thinking)[1].1, "high");
}

#[test]
fn a_session_is_deleted_by_id_and_an_unknown_id_is_refused() {
    let ws = workspace(json!([[{"type": "text", "text": "one"}]]));
    let id = write_session(&ws, "to be deleted");
    assert_eq!(list_sessions(&ws).sessions.len(), 1);
    delete_session(&ws, &id).unwrap();
    assert!(list_sessions(&ws).sessions.is_empty());
    let refused = delete_session(&ws, &id).unwrap_err();
    assert!(refused.contains("no session"), "{refused}");
}

#[test]
fn without_a_key_a_session_asks_for_sign_in_with_the_methods_offered() {
    let ws = workspace(json!([]));
    let models = json!({"providers": {"mock": {
        "baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions",
        "models": [{"id": "a"}]
    }}});
    std::fs::write(ws.home.join("models.json"), models.to_string()).unwrap();
    std::fs::write(
        ws.home.join("settings.json"),
        json!({"defaultProvider": "mock", "defaultModel": "a"}).to_string(),
    )
    .unwrap();
    let (methods, code, message, authenticated) = sign_in_flow(&ws);
    assert_eq!(
        methods,
        [
            "rho-auth-login-anthropic",
            "rho-auth-login-openai",
            "rho-auth-login-google"
        ]
    );
    assert_eq!(code, -32000, "{message}");
    assert!(message.contains("API key"), "{message}");
    assert!(authenticated);
}
