//! Command rules for `bash`: `allow` / `deny` / `ask` on command prefixes, loaded from
//! `RHO_HOME/rules.toml` and the project's `.rho/rules.toml`.

mod rules;
mod split;

pub use rules::{CommandDecision, CommandRules, Decision, Rule, RuleRef, RulesError};
pub use split::{SplitError, split_command};
