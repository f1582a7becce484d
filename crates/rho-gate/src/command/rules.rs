//! Rule files and the decision on one command.
//!
//! A file holds `[[rule]]` tables:
//!
//! ```toml
//! [[rule]]
//! decision = "deny"            # allow | deny | ask
//! prefix = "git push"          # matched token-wise against each simple command
//! match = ["git push origin main"]
//! not_match = ["git pull"]
//! ```
//!
//! Every `match` example must match its rule and no `not_match` example may; a failing example
//! is a load error naming the file and the rule's number. For each simple command `deny` wins;
//! otherwise the matching `allow`/`ask` rule with the longest prefix decides (a tie asks).
//! A command no rule matches is allowed (the sandbox still confines it).

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::split::split_command;

/// What a rule decides.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// Run it.
    Allow,
    /// Ask the user; refused where nobody can be asked.
    Ask,
    /// Never run it.
    Deny,
}

/// One rule as written in a file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    decision: Decision,
    prefix: String,
    #[serde(default, rename = "match")]
    matches: Vec<String>,
    #[serde(default)]
    not_match: Vec<String>,
}

/// The shape of a rules file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    rule: Vec<RawRule>,
}

/// Where a rule was written: file, 1-based number, prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleRef {
    /// The file it came from.
    pub file: PathBuf,
    /// Its number in that file, from 1.
    pub index: usize,
    /// The prefix as written.
    pub prefix: String,
}

impl fmt::Display for RuleRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}, rule {} (\"{}\")",
            self.file.display(),
            self.index,
            self.prefix
        )
    }
}

/// One loaded rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// What it decides.
    pub decision: Decision,
    /// The prefix's words.
    pub prefix: Vec<String>,
    /// Where it was written.
    pub location: RuleRef,
}

impl Rule {
    /// Whether the rule's prefix starts the simple command `words`.
    fn matches(&self, words: &[String]) -> bool {
        let words = strip_wrappers(words);
        if words.len() < self.prefix.len() {
            return false;
        }
        self.prefix
            .iter()
            .zip(words)
            .enumerate()
            .all(|(i, (want, got))| {
                want == got
                    || (i == 0
                        && !want.contains('/')
                        && got.rsplit('/').next() == Some(want.as_str()))
            })
    }

    /// Whether the rule matches any simple command of `command`.
    fn matches_command(&self, command: &str) -> bool {
        split_command(command)
            .map(|parts| parts.iter().any(|part| self.matches(part)))
            .unwrap_or(false)
    }
}

/// Skips what runs the real command: assignments, `{`, `!`, control keywords and plain
/// wrappers (`env`, `command`, `exec`, `nohup`, `builtin`, `sudo` without options).
fn strip_wrappers(mut words: &[String]) -> &[String] {
    const SKIPPED: &[&str] = &[
        "{", "}", "!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "time",
        "env", "command", "exec", "nohup", "builtin",
    ];
    while let Some((first, rest)) = words.split_first() {
        let skip = SKIPPED.contains(&first.as_str())
            || is_assignment(first)
            || (first == "sudo" && rest.first().is_none_or(|next| !next.starts_with('-')));
        if !skip {
            break;
        }
        words = rest;
    }
    words
}

/// `NAME=value`.
fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else {
        return false;
    };
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A rules file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    /// The file exists but cannot be read.
    #[error("Cannot read rules file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid TOML or not the rules shape.
    #[error("Invalid rules file {path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message, with line and column.
        message: String,
    },
    /// A rule whose prefix is empty or cannot be parsed.
    #[error("Invalid rule in {location}: {message}")]
    Rule {
        /// The rule.
        location: RuleRef,
        /// What is wrong.
        message: String,
    },
    /// An example that contradicts its rule.
    #[error("Rule example fails in {location}: \"{example}\" {}", if *.should_match { "should match the rule but does not" } else { "should not match the rule but does" })]
    Example {
        /// The rule.
        location: RuleRef,
        /// The example command.
        example: String,
        /// Whether it was a `match` example.
        should_match: bool,
    },
}

/// What the rules say about one command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandDecision {
    /// Every part is allowed.
    Allow,
    /// A part is denied.
    Deny {
        /// The simple command that matched, words joined by spaces.
        part: String,
        /// The rule.
        rule: RuleRef,
    },
    /// A part needs approval.
    Ask {
        /// The simple command.
        part: String,
        /// The rule.
        rule: RuleRef,
    },
    /// The command could not be split into parts: needs approval.
    Unparsed {
        /// Why.
        reason: String,
    },
}

/// All loaded rules, in load order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommandRules {
    rules: Vec<Rule>,
}

impl CommandRules {
    /// Loads `RHO_HOME/rules.toml`, then `<cwd>/.rho/rules.toml`; missing files are skipped.
    pub fn load_for_session(rho_home: &Path, cwd: &Path) -> Result<Self, RulesError> {
        CommandRules::load(&[
            rho_home.join("rules.toml"),
            cwd.join(".rho").join("rules.toml"),
        ])
    }

    /// `RHO_HOME/rules.toml`, then — when the project is trusted — the `deny` and `ask` rules of
    /// `<cwd>/.rho/rules.toml`: a project never widens what the user allowed, so its `allow`
    /// rules are dropped.
    pub fn load_for_project(
        rho_home: Option<&Path>,
        cwd: &Path,
        project_trusted: bool,
    ) -> Result<Self, RulesError> {
        let mut all = match rho_home {
            Some(home) => CommandRules::load(&[home.join("rules.toml")])?,
            None => CommandRules::default(),
        };
        if project_trusted {
            let mut project = CommandRules::load(&[cwd.join(".rho").join("rules.toml")])?;
            project
                .rules
                .retain(|rule| rule.decision != Decision::Allow);
            all.rules.extend(project.rules);
        }
        Ok(all)
    }

    /// Loads the given files in order; a missing file is skipped.
    pub fn load(files: &[PathBuf]) -> Result<Self, RulesError> {
        let mut all = CommandRules::default();
        for file in files {
            let text = match std::fs::read_to_string(file) {
                Ok(text) => text,
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
                Err(source) => {
                    return Err(RulesError::Read {
                        path: file.clone(),
                        source,
                    });
                }
            };
            all.rules.extend(CommandRules::parse(&text, file)?.rules);
        }
        Ok(all)
    }

    /// Parses one file's text; `origin` names it in errors and rule locations.
    pub fn parse(text: &str, origin: &Path) -> Result<Self, RulesError> {
        let raw: RawFile = toml::from_str(text).map_err(|e| RulesError::Parse {
            path: origin.to_path_buf(),
            message: e.to_string().trim_end().to_owned(),
        })?;
        let mut rules = Vec::with_capacity(raw.rule.len());
        for (i, raw_rule) in raw.rule.into_iter().enumerate() {
            let location = RuleRef {
                file: origin.to_path_buf(),
                index: i + 1,
                prefix: raw_rule.prefix.clone(),
            };
            let prefix = match split_command(&raw_rule.prefix) {
                Ok(mut parts) if parts.len() == 1 => parts.remove(0),
                Ok(parts) if parts.is_empty() => {
                    return Err(RulesError::Rule {
                        location,
                        message: "the prefix is empty".to_owned(),
                    });
                }
                Ok(_) => {
                    return Err(RulesError::Rule {
                        location,
                        message: "the prefix must be one simple command".to_owned(),
                    });
                }
                Err(error) => {
                    return Err(RulesError::Rule {
                        location,
                        message: format!("the prefix cannot be parsed ({error})"),
                    });
                }
            };
            let rule = Rule {
                decision: raw_rule.decision,
                prefix,
                location,
            };
            check_examples(&rule, &raw_rule.matches, true)?;
            check_examples(&rule, &raw_rule.not_match, false)?;
            rules.push(rule);
        }
        Ok(CommandRules { rules })
    }

    /// The loaded rules.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The decision on `command`: every simple command in it must pass.
    pub fn decide(&self, command: &str) -> CommandDecision {
        let parts = match split_command(command) {
            Ok(parts) => parts,
            Err(error) => {
                return CommandDecision::Unparsed {
                    reason: format!("it cannot be parsed: {error}"),
                };
            }
        };
        let mut ask = None;
        for part in &parts {
            let matching: Vec<&Rule> = self.rules.iter().filter(|r| r.matches(part)).collect();
            let shown = part.join(" ");
            if let Some(deny) = matching.iter().find(|r| r.decision == Decision::Deny) {
                return CommandDecision::Deny {
                    part: shown,
                    rule: deny.location.clone(),
                };
            }
            // Longest prefix wins; on a tie `ask` (sorted after `allow`) wins.
            let best = matching
                .iter()
                .max_by_key(|r| (r.prefix.len(), r.decision == Decision::Ask));
            if let Some(rule) = best.filter(|r| r.decision == Decision::Ask) {
                ask.get_or_insert(CommandDecision::Ask {
                    part: shown,
                    rule: rule.location.clone(),
                });
            }
        }
        ask.unwrap_or(CommandDecision::Allow)
    }
}

/// Fails on the first example that contradicts the rule.
fn check_examples(rule: &Rule, examples: &[String], should_match: bool) -> Result<(), RulesError> {
    match examples
        .iter()
        .find(|example| rule.matches_command(example) != should_match)
    {
        Some(example) => Err(RulesError::Example {
            location: rule.location.clone(),
            example: example.clone(),
            should_match,
        }),
        None => Ok(()),
    }
}
