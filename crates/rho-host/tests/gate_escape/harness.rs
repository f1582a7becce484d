//! The corpus's world (a project beside an outside directory, symlinks pointing out) and the
//! runner that sends one tool call through an agent session with the gate installed.

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rho_agent::{AgentEvent, AgentOptions};
use rho_ai::faux::{FauxProvider, faux_message, faux_text, faux_tool_call};
use rho_gate::sandbox::landlock_abi;
use rho_gate::{CommandRules, GatePolicy, LazySandbox, PermissionMode, Sandbox};
use rho_host::gate::Gate;
use rho_host::toolset::{Confinement, create_tools};
use rho_host::{AgentSession, SessionEvent, SettledReason};
use serde_json::Value;

pub const OUTSIDE: &str = "OUTSIDE-CONTENT";
pub const SECRET: &str = "SECRET-CONTENT";
const ALL_TOOLS: [&str; 7] = ["read", "bash", "edit", "write", "grep", "find", "ls"];

const RULES: &str = r#"
[[rule]]
decision = "deny"
prefix = "git push"
match = ["git push origin main"]
not_match = ["git pull"]
"#;

/// A project next to an outside directory, with symlinks pointing out.
pub struct World {
    _dir: tempfile::TempDir,
    pub base: PathBuf,
    pub root: PathBuf,
    pub outside: PathBuf,
}

impl World {
    pub fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("project");
        let outside = base.join("outside");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret.txt"), OUTSIDE).unwrap();
        std::fs::write(root.join("ok.txt"), "hello\n").unwrap();
        std::fs::write(root.join(".env"), SECRET).unwrap();
        std::fs::write(root.join("id_rsa"), SECRET).unwrap();
        symlink(outside.join("secret.txt"), root.join("link_file")).unwrap();
        symlink(&outside, root.join("link_dir")).unwrap();
        symlink(root.join("chain2"), root.join("chain1")).unwrap();
        symlink(outside.join("secret.txt"), root.join("chain2")).unwrap();
        symlink(root.join("loop_b"), root.join("loop_a")).unwrap();
        symlink(root.join("loop_a"), root.join("loop_b")).unwrap();
        symlink(outside.join("created.txt"), root.join("dangling")).unwrap();
        symlink(root.join(".env"), root.join("envlink")).unwrap();
        World {
            _dir: dir,
            base,
            root,
            outside,
        }
    }

    /// Every file outside the project (under the shared temp base) with its content.
    pub fn outside_snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut files = BTreeMap::new();
        let mut stack = vec![self.base.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.starts_with(&self.root) {
                    continue;
                }
                let meta = std::fs::symlink_metadata(&path).unwrap();
                if meta.is_dir() {
                    stack.push(path.clone());
                    files.insert(path, Vec::new());
                } else {
                    files.insert(path.clone(), std::fs::read(&path).unwrap_or_default());
                }
            }
        }
        files
    }

    pub fn policy(&self, mode: PermissionMode) -> Arc<GatePolicy> {
        let rules = CommandRules::parse(RULES, Path::new("rules.toml")).unwrap();
        Arc::new(GatePolicy::new(mode, &self.root).with_rules(rules))
    }
}

/// What one call came to.
#[derive(Debug)]
pub struct Outcome {
    /// The tool ran (`durationMs` present) rather than being blocked in preflight.
    pub executed: bool,
    pub is_error: bool,
    /// The text the model reads.
    pub text: String,
    /// The whole result as JSON, for leak checks.
    pub json: String,
}

/// Runs one scripted tool call through an agent session with the gate and returns its result.
pub async fn run_call(
    policy: Arc<GatePolicy>,
    sandbox: Option<Arc<LazySandbox>>,
    tool: &str,
    args: Value,
) -> Outcome {
    let provider = FauxProvider::new();
    provider.push(faux_message(vec![faux_tool_call("c1", tool, args)]));
    provider.set_fallback(faux_message(vec![faux_text("done")]));
    let mut options = AgentOptions::new(Arc::new(provider.clone()), provider.model());
    let confinement = Confinement {
        policy: policy.clone(),
        sandbox,
    };
    options.tools = create_tools(policy.cwd(), &ALL_TOOLS, Some(&confinement));
    options.tool_hooks = Some(Arc::new(Gate::new(policy)));
    let session = AgentSession::new(options);
    let ends = Arc::new(Mutex::new(Vec::new()));
    let sink = ends.clone();
    session.subscribe(move |event| {
        if let SessionEvent::Agent(AgentEvent::ToolExecutionEnd {
            result,
            is_error,
            duration_ms,
            ..
        }) = event
        {
            sink.lock().unwrap().push(Outcome {
                executed: duration_ms.is_some(),
                is_error: *is_error,
                text: serde_json::to_value(result).unwrap()["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                json: serde_json::to_string(result).unwrap(),
            });
        }
    });
    let settled = session.prompt("go").await.unwrap();
    assert_eq!(settled.reason, SettledReason::Completed);
    assert_eq!(settled.turns, 2, "the run goes on after the tool result");
    let mut ends = ends.lock().unwrap();
    assert_eq!(ends.len(), 1);
    ends.remove(0)
}

/// How a case must end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Expect {
    /// Blocked in preflight with an error result containing this text.
    Refused(&'static str),
    /// Ran (confined or harmless), with nothing outside written and nothing leaked.
    Contained,
}

pub fn assert_contained(
    w: &World,
    before: &BTreeMap<PathBuf, Vec<u8>>,
    case: &str,
    outcome: &Outcome,
    expect: Expect,
) {
    assert_eq!(
        &w.outside_snapshot(),
        before,
        "{case}: something outside the roots changed"
    );
    assert!(
        !outcome.json.contains(OUTSIDE),
        "{case}: outside content leaked: {}",
        outcome.text
    );
    assert!(
        !outcome.json.contains(SECRET),
        "{case}: secret leaked: {}",
        outcome.text
    );
    match expect {
        Expect::Refused(text) => {
            assert!(!outcome.executed, "{case}: the tool ran: {outcome:?}");
            assert!(outcome.is_error, "{case}");
            assert!(outcome.text.contains(text), "{case}: {}", outcome.text);
        }
        Expect::Contained => assert!(outcome.executed, "{case}: {outcome:?}"),
    }
}

/// The sandbox for `mode`, or `None` after saying why the test is skipped.
pub fn sandbox(policy: &GatePolicy) -> Option<Arc<LazySandbox>> {
    rho_testkit::prerequisite::require(
        "the bash sandbox cases need Landlock",
        landlock_abi().map_err(|reason| reason.to_string()),
    )?;
    Some(Arc::new(LazySandbox::from(
        Sandbox::prepare(policy).unwrap(),
    )))
}
