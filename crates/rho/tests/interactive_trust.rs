//! The interactive mode asks once whether to trust a project with `.rho/` configuration, and
//! records the answer in `RHO_HOME/trust.json` as Pi does.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;

use crate::interactive_support::{Mock, answer, project, quit, send, start_rho};
use crate::interactive_tmux::Tmux;

#[test]
fn an_undecided_project_is_asked_about_and_trust_applies_and_is_stored() {
    let mock = Mock::start(vec![answer("hello")]);
    let dir = project(&mock, json!([{"id": "a"}]), None);
    std::fs::create_dir_all(dir.path().join(".rho")).unwrap();
    std::fs::write(
        dir.path().join(".rho/APPEND_SYSTEM.md"),
        "Project append.\n",
    )
    .unwrap();
    let tmux = Tmux::start(dir.path());
    start_rho(&tmux, "--no-session");
    let question = tmux.wait_for("the trust question", |s| {
        s.contains("Trust project folder?") && s.contains("Do not trust (this session only)")
    });
    assert!(
        question.lines().any(|line| line.trim_end() == "→ Trust"),
        "{question}"
    );
    tmux.keys(&["Enter"]);
    tmux.wait_for("the footer", |s| s.contains("ctx ?/"));
    send(&tmux, "hi");
    let bodies = mock.wait_requests(1);
    let system = bodies[0]["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("Project append."), "{system}");
    let canonical = std::fs::canonicalize(dir.path()).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("trust.json")).unwrap(),
        format!("{{\n  \"{}\": true\n}}\n", canonical.display())
    );
    quit(&tmux);
}
