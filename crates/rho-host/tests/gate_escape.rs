//! The escape corpus: tool calls that try to leave the allowed roots or reach secrets, each
//! run through the real agent loop with the gate installed. Every case: refused (an error
//! tool result, the tool never ran) or confined (bash ran in the sandbox), nothing outside the
//! roots written (checked on disk), no outside or secret content returned, the run completes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod corpus;
mod fallback;
mod harness;
mod races;
mod swap;

use std::os::unix::fs::symlink;
use std::sync::Arc;

use rho_gate::PermissionMode;
use rho_host::gate::Gate;
use rho_host::tools::{ReadTool, WriteTool};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use self::corpus::file_cases;
use self::harness::{Expect, OUTSIDE, SECRET, World, assert_contained, run_call, sandbox};

#[tokio::test]
async fn file_tools_never_leave_the_roots_or_touch_secrets() {
    let w = World::new();
    let policy = w.policy(PermissionMode::WorkspaceWrite);
    let cases = file_cases(&w);
    assert!(cases.len() >= 40, "{}", cases.len());
    for (tool, args, expect) in cases {
        let case = format!(
            "{tool} {}",
            args.to_string().chars().take(120).collect::<String>()
        );
        let before = w.outside_snapshot();
        let outcome = run_call(policy.clone(), None, tool, args).await;
        assert_contained(&w, &before, &case, &outcome, expect);
    }
}

#[tokio::test]
async fn read_only_mode_refuses_write_and_edit_inside_the_roots() {
    let w = World::new();
    let policy = w.policy(PermissionMode::ReadOnly);
    for (tool, args) in [
        ("write", json!({"path": "new.txt", "content": "x"})),
        (
            "edit",
            json!({"path": "ok.txt", "edits": [{"oldText": "hello", "newText": "x"}]}),
        ),
    ] {
        let outcome = run_call(policy.clone(), None, tool, args).await;
        assert!(!outcome.executed && outcome.is_error, "{outcome:?}");
        assert!(outcome.text.contains(&format!(
            "The {tool} tool is not available in read-only mode"
        )));
    }
    assert!(!w.root.join("new.txt").exists());
    assert_eq!(
        std::fs::read_to_string(w.root.join("ok.txt")).unwrap(),
        "hello\n"
    );
}

#[tokio::test]
async fn bash_commands_hiding_a_denied_or_unparseable_part_are_refused() {
    let w = World::new();
    let policy = w.policy(PermissionMode::WorkspaceWrite);
    for (command, text) in [
        (
            "true && git push",
            "Command \"git push\" is denied by a command rule (rules.toml, rule 1 (\"git push\"))",
        ),
        (
            "echo $(git push origin)",
            "Command \"git push origin\" is denied",
        ),
        ("ls | (cd sub; git push)", "Command \"git push\" is denied"),
        (
            "git push 'unbalanced",
            "needs approval (it cannot be parsed: unexpected \" 'unbalanced\" at line 1, column 9), and rho is running non-interactively",
        ),
        (
            "bash -c 'cd sub && git push origin'",
            "Command \"bash -c cd sub && git push origin\" is denied",
        ),
        (
            "$GIT push",
            "needs approval (some of its words are only known when it runs, and the rule in rules.toml, rule 1 (\"git push\") could match it)",
        ),
    ] {
        let before = w.outside_snapshot();
        let outcome = run_call(policy.clone(), None, "bash", json!({"command": command})).await;
        assert_contained(&w, &before, command, &outcome, Expect::Refused(text));
    }
}

#[tokio::test]
async fn bash_cannot_write_outside_the_roots_in_the_sandbox() {
    let w = World::new();
    let policy = w.policy(PermissionMode::WorkspaceWrite);
    let Some(sandbox) = sandbox(&policy) else {
        return;
    };
    let out = w.outside.display().to_string();
    let root = w.root.display().to_string();
    let commands = [
        format!("echo x > {out}/x"),
        format!("echo x > {root}/../outside/x2"),
        "cd .. && touch y".to_owned(),
        format!("ln -s {out} esc && echo x > esc/x3"),
        format!("cp ok.txt {out}/copy"),
        format!("mkdir {out}/d"),
        format!("rm {out}/secret.txt"),
        "echo x >> link_file".to_owned(),
        format!("mv ok.txt {out}/moved"),
    ];
    for command in &commands {
        let before = w.outside_snapshot();
        let outcome = run_call(
            policy.clone(),
            Some(sandbox.clone()),
            "bash",
            json!({"command": command}),
        )
        .await;
        assert_contained(&w, &before, command, &outcome, Expect::Contained);
        assert!(outcome.is_error, "{command}: {outcome:?}");
    }
    // Inside the roots and in its own TMPDIR the shell works as usual.
    let outcome = run_call(
        policy.clone(),
        Some(sandbox.clone()),
        "bash",
        json!({"command": "echo made > made.txt && echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\""}),
    )
    .await;
    assert!(!outcome.is_error, "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(w.root.join("made.txt")).unwrap(),
        "made\n"
    );
}

#[tokio::test]
async fn bash_in_read_only_mode_writes_nowhere() {
    let w = World::new();
    let policy = w.policy(PermissionMode::ReadOnly);
    let Some(sandbox) = sandbox(&policy) else {
        return;
    };
    let before = w.outside_snapshot();
    let outcome = run_call(
        policy,
        Some(sandbox),
        "bash",
        json!({"command": "cat ok.txt && echo x > inside.txt"}),
    )
    .await;
    assert_contained(&w, &before, "read-only bash", &outcome, Expect::Contained);
    assert!(
        outcome.is_error && outcome.text.contains("hello"),
        "{outcome:?}"
    );
    assert!(!w.root.join("inside.txt").exists());
}

#[tokio::test]
async fn a_symlink_swapped_in_after_the_check_is_caught_when_the_file_is_opened() {
    let w = World::new();
    let policy = w.policy(PermissionMode::WorkspaceWrite);
    let gate = Gate::new(policy.clone());
    let cancel = CancellationToken::new();

    std::fs::write(w.root.join("swap.txt"), "fine").unwrap();
    let read_args = json!({"path": "swap.txt"});
    assert_eq!(gate.check("read", &read_args).await, Ok(()));
    std::fs::remove_file(w.root.join("swap.txt")).unwrap();
    symlink(w.outside.join("secret.txt"), w.root.join("swap.txt")).unwrap();
    let read = ReadTool::new(&w.root).with_gate(policy.clone());
    let error = read.read_file(&read_args, &cancel).await.unwrap_err();
    assert_eq!(
        error.0,
        format!(
            "Path {}/secret.txt is outside the allowed directories: {}. Use --allow-dir to allow it.",
            w.outside.display(),
            w.root.display()
        )
    );

    // A directory swapped for a symlink between check and write: nothing is created outside.
    let before = w.outside_snapshot();
    let write_args = json!({"path": "sub/new.txt", "content": "x"});
    assert_eq!(gate.check("write", &write_args).await, Ok(()));
    std::fs::remove_dir(w.root.join("sub")).unwrap();
    symlink(&w.outside, w.root.join("sub")).unwrap();
    let write = WriteTool::new(&w.root, Arc::default()).with_gate(policy.clone());
    let error = write.write_file(&write_args, &cancel).await.unwrap_err();
    assert!(
        error.0.contains("is outside the allowed directories"),
        "{}",
        error.0
    );
    assert_eq!(w.outside_snapshot(), before);

    // A final component swapped for a symlink pointing out: refused, the target untouched.
    std::fs::write(w.root.join("plain.txt"), "x").unwrap();
    let write_args = json!({"path": "plain.txt", "content": "overwritten"});
    assert_eq!(gate.check("write", &write_args).await, Ok(()));
    std::fs::remove_file(w.root.join("plain.txt")).unwrap();
    symlink(w.outside.join("secret.txt"), w.root.join("plain.txt")).unwrap();
    let error = write.write_file(&write_args, &cancel).await.unwrap_err();
    assert!(
        error.0.contains("is outside the allowed directories"),
        "{}",
        error.0
    );
    assert_eq!(
        std::fs::read_to_string(w.outside.join("secret.txt")).unwrap(),
        OUTSIDE
    );
}

#[tokio::test]
async fn full_mode_turns_the_path_gate_off() {
    let w = World::new();
    let policy = w.policy(PermissionMode::Full);
    let outcome = run_call(
        policy,
        None,
        "read",
        json!({"path": "../outside/secret.txt"}),
    )
    .await;
    assert!(outcome.executed && !outcome.is_error);
    assert!(outcome.json.contains(OUTSIDE));
}

#[tokio::test]
async fn grep_over_the_project_never_reads_secret_files() {
    let w = World::new();
    std::fs::write(
        w.root.join("notes.txt"),
        "SECRET-CONTENT is discussed here\n",
    )
    .unwrap();
    std::fs::write(w.root.join("public.txt"), "a SECRET-free line\n").unwrap();
    let policy = w.policy(PermissionMode::WorkspaceWrite);
    let outcome = run_call(policy, None, "grep", json!({"pattern": "SECRET"})).await;
    assert!(outcome.executed && !outcome.is_error, "{outcome:?}");
    assert_eq!(
        outcome.text,
        "notes.txt:1: SECRET-CONTENT is discussed here\npublic.txt:1: a SECRET-free line\n\n[2 secret file(s) not searched: rho's gate never reads them]"
    );
}

/// The route the red team found: `grep` in a directory whose name made the file a secret
/// (`.aws/credentials`), printed relative to that directory as `credentials`.
#[tokio::test]
async fn grep_inside_a_credentials_directory_reads_no_secret() {
    let w = World::new();
    for (dir, file) in [
        (".aws", "credentials"),
        (".kube", "config"),
        (".docker", "config.json"),
        (".config/gh", "hosts.yml"),
    ] {
        std::fs::create_dir_all(w.root.join(dir)).unwrap();
        std::fs::write(
            w.root.join(dir).join(file),
            "aws_secret_access_key=SECRET-CONTENT\n",
        )
        .unwrap();
    }
    let policy = w.policy(PermissionMode::WorkspaceWrite);
    for dir in [".aws", ".kube", ".docker", ".config/gh", ".config"] {
        let outcome = run_call(
            policy.clone(),
            None,
            "grep",
            json!({"pattern": "secret", "path": dir, "ignoreCase": true}),
        )
        .await;
        assert!(!outcome.json.contains(SECRET), "{dir}: {}", outcome.text);
        assert_eq!(
            outcome.text,
            "No matches found\n\n[1 secret file(s) not searched: rho's gate never reads them]",
            "{dir}"
        );
    }
}

/// Answers every approval request with `answer`, remembering what it was asked.
struct Answer {
    answer: bool,
    asked: std::sync::Mutex<Vec<(String, String)>>,
}

#[async_trait::async_trait]
impl rho_host::gate::Approver for Answer {
    async fn approve(&self, command: &str, why: &str) -> bool {
        self.asked
            .lock()
            .unwrap()
            .push((command.to_owned(), why.to_owned()));
        self.answer
    }
}

#[tokio::test]
async fn an_approver_decides_ask_commands_but_never_denied_ones() {
    let w = World::new();
    let rules = "[[rule]]\ndecision = \"ask\"\nprefix = \"rm -rf\"\n\n[[rule]]\ndecision = \"deny\"\nprefix = \"git push\"\n";
    let rules = rho_gate::CommandRules::parse(rules, std::path::Path::new("r.toml")).unwrap();
    let policy = Arc::new(
        rho_gate::GatePolicy::new(PermissionMode::WorkspaceWrite, &w.root).with_rules(rules),
    );
    let yes = Arc::new(Answer {
        answer: true,
        asked: Default::default(),
    });
    let gate = Gate::new(policy.clone()).with_approver(yes.clone());
    let args = json!({"command": "rm -rf build"});
    assert_eq!(gate.check("bash", &args).await, Ok(()));
    assert_eq!(
        *yes.asked.lock().unwrap(),
        [(
            "rm -rf build".to_owned(),
            "ask rule in r.toml, rule 1 (\"rm -rf\")".to_owned()
        )]
    );
    assert!(
        gate.check("bash", &json!({"command": "git push"}))
            .await
            .is_err()
    );

    let no = Arc::new(Answer {
        answer: false,
        asked: Default::default(),
    });
    let gate = Gate::new(policy.clone()).with_approver(no);
    assert_eq!(
        gate.check("bash", &args).await.unwrap_err().to_string(),
        "Command \"rm -rf build\" was not approved by the user."
    );
    assert_eq!(
        Gate::new(policy)
            .check("bash", &args)
            .await
            .unwrap_err()
            .to_string(),
        "Command \"rm -rf build\" needs approval (ask rule in r.toml, rule 1 (\"rm -rf\")), and rho is running non-interactively, so it was refused. To allow it, add an allow rule for it to RHO_HOME/rules.toml (a project's own rules file cannot allow)."
    );
}
