//! Rule files and the decision on one command.
//!
//! A file holds `[[rule]]` tables:
//!
//! ```toml
//! [[rule]]
//! decision = "deny"            # allow | deny | ask
//! prefix = "git push"          # or: command = "git push origin main" (exactly that command),
//!                              # or: tool = "mcp__github__*" (tools by name, `*` any run)
//! match = ["git push origin main"]
//! not_match = ["git pull"]
//! ```
//!
//! Commands are parsed with a real shell parser ([`super::parse`]) and every simple command in
//! them is checked, with the commands wrappers and literal scripts run in their place
//! ([`super::normalize`]). A `deny` or `ask` prefix matches by shape — the same name, every
//! flag of the rule in any spelling (`-rf`, `-fr`, `-r -f`, `--recursive --force`), the rule's
//! other words first — so it catches more; an `allow` prefix matches word for word, so it
//! allows no more than it says; a `command` rule matches exactly that command.
//!
//! Every `match` example must match its rule and no `not_match` example may; a failing example
//! is a load error naming the file and the rule's number. For each simple command `deny` wins;
//! otherwise the matching `allow`/`ask` rule that says the most decides (an exact command over
//! any prefix, then the longest prefix; a tie asks). A command no rule matches is allowed: rules
//! are a convenience, the sandbox is the boundary. A command whose words are only known when it
//! runs (`$CMD -rf x`), or that cannot be parsed, needs approval when a `deny` or `ask` rule
//! could match it, and is allowed otherwise.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::normalize::{Candidate, Hidden, Shape, basename, candidates};
use super::parse::{Word, simple_commands};

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
    #[serde(default)]
    prefix: Option<String>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    tool: Option<String>,
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

/// Where a rule was written: file, 1-based number, its prefix or command as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleRef {
    /// The file it came from.
    pub file: PathBuf,
    /// Its number in that file, from 1.
    pub index: usize,
    /// The prefix (or exact command) as written.
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

/// What a rule matches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Commands that start with these words (`allow`), or have this shape (`deny`, `ask`).
    Prefix(Vec<String>),
    /// Exactly this command.
    Exact(Vec<String>),
    /// Tools whose names match (`*` matches any run of characters): not bash commands.
    Tool(String),
}

/// One loaded rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// What it decides.
    pub decision: Decision,
    /// What it matches.
    pub pattern: Pattern,
    /// Where it was written.
    pub location: RuleRef,
    /// The prefix's shape, for `deny` and `ask`.
    shape: Shape,
}

/// Whether a rule applies to a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Matches,
    /// Only the shell knows (a word is an expansion) and the rule could apply.
    Maybe,
    No,
}

impl Rule {
    /// How specific the rule is: an exact command over every prefix, then longer prefixes.
    fn specificity(&self) -> usize {
        match &self.pattern {
            Pattern::Exact(_) => usize::MAX,
            Pattern::Prefix(words) => words.len(),
            // More literal characters say more.
            Pattern::Tool(pattern) => pattern.len() - pattern.matches('*').count(),
        }
    }

    /// Whether the rule applies to one candidate command.
    fn verdict(&self, candidate: &Candidate) -> Verdict {
        let words = &candidate.words;
        match (&self.pattern, self.decision) {
            (Pattern::Tool(_), _) => Verdict::No,
            (Pattern::Exact(want), _) => {
                let exact = words.len() == want.len()
                    && words
                        .iter()
                        .zip(want)
                        .all(|(got, want)| got.literal() == Some(want.as_str()));
                if exact { Verdict::Matches } else { Verdict::No }
            }
            (Pattern::Prefix(want), Decision::Allow) => {
                let prefix = words.len() >= want.len()
                    && words.iter().zip(want).enumerate().all(|(i, (got, want))| {
                        let got = got.literal();
                        got == Some(want.as_str())
                            || (i == 0 && !want.contains('/') && got.map(basename) == Some(want))
                    });
                if prefix {
                    Verdict::Matches
                } else {
                    Verdict::No
                }
            }
            (Pattern::Prefix(_), Decision::Deny | Decision::Ask) => match Shape::of(words) {
                None => Verdict::Maybe,
                Some(shape) if shape.covers(&self.shape) => Verdict::Matches,
                Some(shape) if shape.name == self.shape.name && shape.dynamic => Verdict::Maybe,
                Some(_) => Verdict::No,
            },
        }
    }

    /// Whether the rule matches any simple command of `command` (its examples' check).
    fn matches_command(&self, command: &str) -> bool {
        if let Pattern::Tool(pattern) = &self.pattern {
            return rho_stdx::text::wildcard_match(pattern, command);
        }
        let Ok(parts) = simple_commands(command) else {
            return false;
        };
        parts.iter().any(|part| {
            candidates(part).is_ok_and(|all| {
                all.iter()
                    .any(|candidate| self.verdict(candidate) == Verdict::Matches)
            })
        })
    }

    /// The command name the rule is about, for commands that cannot be parsed.
    fn name(&self) -> &str {
        let words = match &self.pattern {
            Pattern::Prefix(words) | Pattern::Exact(words) => words,
            Pattern::Tool(_) => return "",
        };
        words.first().map_or("", |name| basename(name))
    }
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
    /// A part whose words are only known when it runs, and that a `deny` or `ask` rule could
    /// match: needs approval.
    Unknown {
        /// The simple command, as written.
        part: String,
        /// The rule it could match.
        rule: RuleRef,
    },
    /// The command cannot be parsed, and a `deny` or `ask` rule could match it: needs approval.
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
            let rule = load_rule(&raw_rule, origin, i + 1)?;
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

    /// The decision on a call of the tool `name` (not bash): the `tool` rules matching it, `deny`
    /// first, then the most specific (a tie asks); no rule is allow.
    pub fn decide_tool(&self, name: &str) -> CommandDecision {
        let matching: Vec<&Rule> = self
            .rules
            .iter()
            .filter(|rule| matches!(&rule.pattern, Pattern::Tool(p) if rho_stdx::text::wildcard_match(p, name)))
            .collect();
        if let Some(deny) = matching.iter().find(|r| r.decision == Decision::Deny) {
            return CommandDecision::Deny {
                part: name.to_owned(),
                rule: deny.location.clone(),
            };
        }
        let best = matching
            .iter()
            .max_by_key(|rule| (rule.specificity(), rule.decision == Decision::Ask));
        match best {
            Some(rule) if rule.decision == Decision::Ask => CommandDecision::Ask {
                part: name.to_owned(),
                rule: rule.location.clone(),
            },
            _ => CommandDecision::Allow,
        }
    }

    /// The decision on `command`: every simple command in it must pass.
    pub fn decide(&self, command: &str) -> CommandDecision {
        if self.rules.is_empty() {
            return CommandDecision::Allow;
        }
        let parts = match simple_commands(command) {
            Ok(parts) => parts,
            Err(error) => return self.unparsed(command, &format!("it cannot be parsed: {error}")),
        };
        let mut ask = None;
        for part in &parts {
            let all = match candidates(part) {
                Ok(all) => all,
                Err(Hidden::Unparsable { script, reason }) => {
                    return self.unparsed(&script, &reason);
                }
                Err(Hidden::Dynamic(reason)) => {
                    // It could be anything: every `deny` and `ask` rule could match it.
                    if self.rules.iter().any(|r| r.decision != Decision::Allow) {
                        return CommandDecision::Unparsed { reason };
                    }
                    continue;
                }
            };
            match self.decide_part(part, &all) {
                CommandDecision::Allow => {}
                deny @ CommandDecision::Deny { .. } => return deny,
                other => {
                    ask.get_or_insert(other);
                }
            }
        }
        ask.unwrap_or(CommandDecision::Allow)
    }

    /// The decision on one simple command, given what it runs.
    fn decide_part(&self, part: &[Word], all: &[Candidate]) -> CommandDecision {
        let shown = || part.iter().map(Word::text).collect::<Vec<_>>().join(" ");
        let verdicts: Vec<(&Rule, Verdict)> = self
            .rules
            .iter()
            .map(|rule| {
                let verdict = all
                    .iter()
                    .map(|candidate| rule.verdict(candidate))
                    .min_by_key(|verdict| match verdict {
                        Verdict::Matches => 0,
                        Verdict::Maybe => 1,
                        Verdict::No => 2,
                    })
                    .unwrap_or(Verdict::No);
                (rule, verdict)
            })
            .collect();
        let matching = |decision: Decision| {
            verdicts
                .iter()
                .filter(move |(rule, verdict)| {
                    rule.decision == decision && *verdict == Verdict::Matches
                })
                .map(|(rule, _)| *rule)
        };
        if let Some(deny) = matching(Decision::Deny).next() {
            return CommandDecision::Deny {
                part: shown(),
                rule: deny.location.clone(),
            };
        }
        // The rule that says the most wins; on a tie `ask` does.
        let best = matching(Decision::Allow)
            .chain(matching(Decision::Ask))
            .max_by_key(|rule| (rule.specificity(), rule.decision == Decision::Ask));
        if let Some(rule) = best {
            return match rule.decision {
                Decision::Ask => CommandDecision::Ask {
                    part: shown(),
                    rule: rule.location.clone(),
                },
                Decision::Allow | Decision::Deny => CommandDecision::Allow,
            };
        }
        let maybe = verdicts
            .iter()
            .find(|(rule, verdict)| *verdict == Verdict::Maybe && rule.decision != Decision::Allow);
        match maybe {
            Some((rule, _)) => CommandDecision::Unknown {
                part: shown(),
                rule: rule.location.clone(),
            },
            None => CommandDecision::Allow,
        }
    }

    /// A command rho cannot read: it needs approval when a `deny` or `ask` rule's command name
    /// appears in it as a word, and is allowed otherwise.
    fn unparsed(&self, command: &str, reason: &str) -> CommandDecision {
        let words: Vec<&str> = command
            .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')))
            .map(basename)
            .collect();
        let could_match = self
            .rules
            .iter()
            .any(|rule| rule.decision != Decision::Allow && words.contains(&rule.name()));
        if could_match {
            CommandDecision::Unparsed {
                reason: reason.to_owned(),
            }
        } else {
            CommandDecision::Allow
        }
    }
}

/// One rule from its file's table.
fn load_rule(raw: &RawRule, origin: &Path, index: usize) -> Result<Rule, RulesError> {
    let (text, exact) = match (&raw.prefix, &raw.command, &raw.tool) {
        (Some(prefix), None, None) => (prefix, false),
        (None, Some(command), None) => (command, true),
        (None, None, Some(tool)) => {
            return Ok(Rule {
                decision: raw.decision,
                pattern: Pattern::Tool(tool.clone()),
                location: RuleRef {
                    file: origin.to_path_buf(),
                    index,
                    prefix: tool.clone(),
                },
                shape: Shape::default(),
            });
        }
        (given, _, _) => {
            let shown = given
                .clone()
                .or_else(|| raw.command.clone())
                .or_else(|| raw.tool.clone())
                .unwrap_or_default();
            return Err(RulesError::Rule {
                location: RuleRef {
                    file: origin.to_path_buf(),
                    index,
                    prefix: shown,
                },
                message: "a rule has one of prefix, command or tool".to_owned(),
            });
        }
    };
    let location = RuleRef {
        file: origin.to_path_buf(),
        index,
        prefix: text.clone(),
    };
    let invalid = |message: String| RulesError::Rule {
        location: location.clone(),
        message,
    };
    let what = if exact { "command" } else { "prefix" };
    let mut parts = simple_commands(text)
        .map_err(|error| invalid(format!("the {what} cannot be parsed ({error})")))?;
    let words = match parts.len() {
        0 => return Err(invalid(format!("the {what} is empty"))),
        1 => parts.remove(0),
        _ => return Err(invalid(format!("the {what} must be one simple command"))),
    };
    let literal: Option<Vec<String>> = words
        .iter()
        .map(|word| word.literal().map(str::to_owned))
        .collect();
    let Some(literal) = literal else {
        return Err(invalid(format!(
            "the {what} must be literal words (no expansions, globs or substitutions)"
        )));
    };
    let shape = Shape::of(&words).unwrap_or_default();
    Ok(Rule {
        decision: raw.decision,
        pattern: if exact {
            Pattern::Exact(literal)
        } else {
            Pattern::Prefix(literal)
        },
        location,
        shape,
    })
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
