//! Every built-in tool declares exactly what Pi 1.6.0 declares: name, description, parameter
//! schema (byte for byte, TypeBox's key order) and `constrainedSampling`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_host::toolset::create_tools;
use serde_json::Value;

/// One line per tool, printed by Pi 1.6.0's `createToolDefinition(name, cwd)` under Node 22:
/// `{name, description, parameters, constrainedSampling?}`.
const PI16_DEFINITIONS: &str = include_str!("data/pi16-tool-definitions.jsonl");

#[test]
fn every_builtin_tool_declares_what_pi_1_6_declares() {
    let tools = create_tools(
        std::path::Path::new("/tmp"),
        &["read", "bash", "edit", "write", "grep", "find", "ls"],
        None,
    );
    let mut mismatches = Vec::new();
    for line in PI16_DEFINITIONS.lines() {
        let pi: Value = serde_json::from_str(line).unwrap();
        let name = pi["name"].as_str().unwrap();
        let tool = tools.iter().find(|tool| tool.name() == name).unwrap();
        let ours = (
            tool.description().to_owned(),
            serde_json::to_string(tool.parameters()).unwrap(),
            tool.constrained_sampling(),
        );
        let pis = (
            pi["description"].as_str().unwrap().to_owned(),
            serde_json::to_string(&pi["parameters"]).unwrap(),
            pi.get("constrainedSampling").cloned(),
        );
        if ours != pis {
            mismatches.push(format!("{name}:\n  ours: {ours:?}\n  pi's: {pis:?}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
