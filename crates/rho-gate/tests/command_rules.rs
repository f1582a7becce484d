//! Command splitting, rule decisions, and rule files whose examples fail at load.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use rho_gate::command::{RuleRef, SplitError, split_command};
use rho_gate::{CommandDecision, CommandRules, RulesError};

fn words(parts: &[&[&str]]) -> Vec<Vec<String>> {
    parts
        .iter()
        .map(|p| p.iter().map(|w| (*w).to_owned()).collect())
        .collect()
}

const RULES: &str = r#"
[[rule]]
decision = "deny"
prefix = "git push"
match = ["git push", "git push origin main"]
not_match = ["git pull", "git", "echo git push"]

[[rule]]
decision = "ask"
prefix = "rm -rf"
match = ["rm -rf build"]
not_match = ["rm -r build"]

[[rule]]
decision = "allow"
prefix = "rm -rf target"
"#;

fn rules() -> CommandRules {
    CommandRules::parse(RULES, Path::new("/p/.rho/rules.toml")).unwrap()
}

fn rule_ref(index: usize, prefix: &str) -> RuleRef {
    RuleRef {
        file: PathBuf::from("/p/.rho/rules.toml"),
        index,
        prefix: prefix.to_owned(),
    }
}

#[test]
fn a_command_is_split_on_every_operator_and_substitution() {
    let split = split_command(
        "a 1 && b 2 || c; d | e & f\ng (h; i) $(j k) `l` \"m $(n)\" <(o) 2>/dev/null",
    )
    .unwrap();
    assert_eq!(
        split,
        words(&[
            &["a", "1"],
            &["b", "2"],
            &["c"],
            &["d"],
            &["e"],
            &["f"],
            &["g"],
            &["h"],
            &["i"],
            &["j", "k"],
            &["l"],
            &["n"],
            &["o"],
            &["$(…)", "`…`", "m $(…)"],
        ])
    );
}

#[test]
fn quotes_and_escapes_are_removed_from_words() {
    assert_eq!(
        split_command(r#"git 'pu'"sh" \o\r\i\g\i\n # comment"#).unwrap(),
        words(&[&["git", "push", "origin"]])
    );
}

#[test]
fn unbalanced_input_is_an_error() {
    assert_eq!(split_command("echo 'x"), Err(SplitError::UnbalancedQuote));
    assert_eq!(split_command("echo \"x"), Err(SplitError::UnbalancedQuote));
    assert_eq!(split_command("echo $(x"), Err(SplitError::Unbalanced));
    assert_eq!(split_command("echo x)"), Err(SplitError::Unbalanced));
    assert_eq!(split_command("echo `x"), Err(SplitError::Unbalanced));
    assert_eq!(split_command(&"(".repeat(100)), Err(SplitError::TooDeep));
}

#[test]
fn a_denied_command_hidden_in_a_compound_is_denied() {
    let rules = rules();
    for command in [
        "true && git push",
        "ls; git push origin",
        "echo $(git push)",
        "echo \"`git push`\"",
        "(cd x && git push)",
        "FOO=1 git push",
        "/usr/bin/git push",
        "{ git push; }",
        "sudo git push",
        "cat x | git push",
    ] {
        assert_eq!(
            rules.decide(command),
            CommandDecision::Deny {
                part: command_part(command),
                rule: rule_ref(1, "git push"),
            },
            "{command}"
        );
    }
}

/// The simple command of the corpus that contains `push`, as the splitter yields it.
fn command_part(command: &str) -> String {
    split_command(command)
        .unwrap()
        .into_iter()
        .find(|part| part.iter().any(|w| w == "push"))
        .unwrap()
        .join(" ")
}

#[test]
fn ask_applies_unless_a_longer_allow_prefix_matches_and_deny_wins_over_all() {
    let rules = rules();
    assert_eq!(
        rules.decide("rm -rf build"),
        CommandDecision::Ask {
            part: "rm -rf build".into(),
            rule: rule_ref(2, "rm -rf"),
        }
    );
    assert_eq!(rules.decide("rm -rf target"), CommandDecision::Allow);
    assert_eq!(rules.decide("git status && ls"), CommandDecision::Allow);
    assert_eq!(
        rules.decide("rm -rf target; git push"),
        CommandDecision::Deny {
            part: "git push".into(),
            rule: rule_ref(1, "git push"),
        }
    );
}

#[test]
fn an_unparseable_command_needs_approval() {
    assert_eq!(
        rules().decide("echo 'oops"),
        CommandDecision::Unparsed {
            reason: "it cannot be parsed: unbalanced quote".into()
        }
    );
}

#[test]
fn a_match_example_that_fails_its_rule_is_reported_with_file_and_rule_number() {
    let text = r#"
[[rule]]
decision = "allow"
prefix = "ls"

[[rule]]
decision = "deny"
prefix = "git push"
match = ["git pull"]
"#;
    let error = CommandRules::parse(text, Path::new("/home/me/.rho/rules.toml")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Rule example fails in /home/me/.rho/rules.toml, rule 2 (\"git push\"): \"git pull\" should match the rule but does not"
    );
    assert!(matches!(
        error,
        RulesError::Example {
            should_match: true,
            ..
        }
    ));
}

#[test]
fn a_not_match_example_that_matches_is_reported() {
    let text = "[[rule]]\ndecision = \"ask\"\nprefix = \"rm\"\nnot_match = [\"x && rm -f y\"]\n";
    let error = CommandRules::parse(text, Path::new("r.toml")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Rule example fails in r.toml, rule 1 (\"rm\"): \"x && rm -f y\" should not match the rule but does"
    );
}

#[test]
fn malformed_files_and_rules_are_errors_naming_the_file() {
    let bad_decision = "[[rule]]\ndecision = \"maybe\"\nprefix = \"ls\"\n";
    let error = CommandRules::parse(bad_decision, Path::new("r.toml")).unwrap_err();
    assert!(matches!(&error, RulesError::Parse { path, .. } if path == Path::new("r.toml")));
    assert!(error.to_string().starts_with("Invalid rules file r.toml: "));
    assert!(error.to_string().contains("line 2"), "{error}");

    let empty = "[[rule]]\ndecision = \"deny\"\nprefix = \"  \"\n";
    assert_eq!(
        CommandRules::parse(empty, Path::new("r.toml"))
            .unwrap_err()
            .to_string(),
        "Invalid rule in r.toml, rule 1 (\"  \"): the prefix is empty"
    );
    let compound = "[[rule]]\ndecision = \"deny\"\nprefix = \"a; b\"\n";
    assert_eq!(
        CommandRules::parse(compound, Path::new("r.toml"))
            .unwrap_err()
            .to_string(),
        "Invalid rule in r.toml, rule 1 (\"a; b\"): the prefix must be one simple command"
    );
}

#[test]
fn rules_load_from_rho_home_and_the_project_and_missing_files_are_skipped() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    assert_eq!(
        CommandRules::load_for_session(home.path(), project.path()).unwrap(),
        CommandRules::default()
    );
    std::fs::write(
        home.path().join("rules.toml"),
        "[[rule]]\ndecision = \"deny\"\nprefix = \"git push\"\n",
    )
    .unwrap();
    std::fs::create_dir(project.path().join(".rho")).unwrap();
    let project_file = project.path().join(".rho").join("rules.toml");
    std::fs::write(
        &project_file,
        "[[rule]]\ndecision = \"ask\"\nprefix = \"curl\"\n",
    )
    .unwrap();
    let rules = CommandRules::load_for_session(home.path(), project.path()).unwrap();
    assert_eq!(
        rules.decide("curl x"),
        CommandDecision::Ask {
            part: "curl x".into(),
            rule: RuleRef {
                file: project_file,
                index: 1,
                prefix: "curl".into()
            }
        }
    );
    assert!(matches!(
        rules.decide("git push"),
        CommandDecision::Deny { .. }
    ));
}
