//! Command rules for `bash`: `allow` / `deny` / `ask` on commands, loaded from
//! `RHO_HOME/rules.toml` and the project's `.rho/rules.toml`, over commands read by a real
//! shell parser.

mod normalize;
mod parse;
mod rules;

pub use parse::{ParseError, Word, simple_commands};
pub use rules::{CommandDecision, CommandRules, Decision, Pattern, Rule, RuleRef, RulesError};
