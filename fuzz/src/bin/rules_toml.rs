//! Target `rules_toml`: the command rules file (`rules.toml`), then each of the input's lines
//! as a shell command to decide on (the command splitter reads the model's commands).

use std::path::Path;

use rho_gate::CommandRules;

/// Parses `data` as a rules file and decides each of its lines as a command.
pub fn run(data: &[u8]) {
    let text = rho_fuzz::input::text(data);
    let rules = CommandRules::parse(&text, Path::new("rules.toml")).unwrap_or_default();
    for line in text.lines() {
        let _ = rules.decide(line);
    }
}

rho_fuzz::main!(run);
