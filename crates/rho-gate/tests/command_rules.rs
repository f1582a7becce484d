//! Command splitting, rule decisions, and rule files whose examples fail at load.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use rho_gate::command::{RuleRef, Word, simple_commands};
use rho_gate::{CommandDecision, CommandRules, RulesError};

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

fn literal_words(command: &str) -> Vec<Vec<String>> {
    simple_commands(command)
        .unwrap()
        .iter()
        .map(|part| part.iter().map(|w| w.text().to_owned()).collect())
        .collect()
}

#[test]
fn a_command_is_read_into_every_simple_command_it_runs() {
    let parts = literal_words(
        "a 1 && b 2 || c; d | e & f\ng; (h; i); echo $(j k) `l` \"m $(n)\" <(o) 2>/dev/null",
    );
    for part in [
        "a 1", "b 2", "c", "d", "e", "f", "g", "h", "i", "j k", "l", "n", "o",
    ] {
        let words: Vec<String> = part.split(' ').map(str::to_owned).collect();
        assert!(parts.contains(&words), "{part}: {parts:?}");
    }
}

#[test]
fn quotes_and_escapes_are_removed_from_words() {
    let parts = simple_commands(r#"git 'pu'"sh" \o\r\i\g\i\n # comment"#).unwrap();
    assert_eq!(
        parts,
        [vec![
            Word::Lit("git".into()),
            Word::Lit("push".into()),
            Word::Lit("origin".into())
        ]]
    );
}

#[test]
fn input_that_cannot_be_read_is_an_error() {
    for command in ["echo 'x", "echo \"x", "echo $(x", "echo x)", "echo `x"] {
        assert!(simple_commands(command).is_err(), "{command}");
    }
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

/// The simple command of the corpus that contains `push`, as written.
fn command_part(command: &str) -> String {
    literal_words(command)
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
fn an_unparseable_command_needs_approval_only_when_a_rule_could_match_it() {
    let decision = rules().decide("git push 'oops");
    assert!(
        matches!(&decision, CommandDecision::Unparsed { reason } if reason.starts_with("it cannot be parsed: ")),
        "{decision:?}"
    );
    // No deny or ask rule is about `echo`: the sandbox is the boundary, not the rules.
    assert_eq!(rules().decide("echo 'oops"), CommandDecision::Allow);
    assert_eq!(
        CommandRules::default().decide("git push 'oops"),
        CommandDecision::Allow
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

/// The red team's route: a `deny` of `rm -rf` and thirty ways of spelling it. Every spelling
/// the shell runs as `rm` with `-r` and `-f` is refused (denied, or asked about when a word is
/// only known at run time); what deletes without running `rm` at all is not a spelling of it,
/// and the rules say nothing about it — the sandbox is the boundary.
#[test]
fn a_deny_of_rm_rf_holds_against_every_spelling_of_rm_rf() {
    let rules = CommandRules::parse(
        "[[rule]]\ndecision = \"deny\"\nprefix = \"rm -rf\"\n",
        Path::new("r.toml"),
    )
    .unwrap();
    let refused = [
        "rm -rf x",
        "rm -fr x",
        "rm -r -f x",
        "rm -f -r x",
        "rm --recursive --force x",
        "rm --force --recursive x",
        "rm -Rf x",
        "rm -rfv x",
        "rm x -rf",
        "/bin/rm -rf x",
        "\\rm -rf x",
        "'rm' -rf x",
        "\"rm\" -rf x",
        "$'rm' -rf x",
        "r\\m -rf x",
        "env -i rm -rf x",
        "env FOO=1 rm -rf x",
        "sudo rm -rf x",
        "sudo -u root rm -rf x",
        "nice -n 5 rm -rf x",
        "timeout 5 rm -rf x",
        "command rm -rf x",
        "exec rm -rf x",
        "xargs rm -rf < list",
        "bash -c 'rm -rf x'",
        "sh -c \"cd / && rm -rf x\"",
        "eval rm -rf x",
        "find . -exec rm -rf {} \\;",
        "echo $(rm -rf x)",
        "true && { rm -rf x; }",
        "$RM -rf x",
        "rm $FLAGS x",
        "bash -c \"$SCRIPT\"",
    ];
    for command in refused {
        let decision = rules.decide(command);
        assert!(
            matches!(
                decision,
                CommandDecision::Deny { .. }
                    | CommandDecision::Unknown { .. }
                    | CommandDecision::Unparsed { .. }
            ),
            "{command}: {decision:?}"
        );
    }
    for command in [
        "rm -r x",
        "rm -f x",
        "find . -delete",
        "python3 -c 'import shutil; shutil.rmtree(\"x\")'",
    ] {
        assert_eq!(rules.decide(command), CommandDecision::Allow, "{command}");
    }
}

#[test]
fn an_exact_command_rule_allows_that_command_and_nothing_longer() {
    let text = "[[rule]]\ndecision = \"ask\"\nprefix = \"git push\"\n\n[[rule]]\ndecision = \"allow\"\ncommand = \"git push origin main\"\n";
    let rules = CommandRules::parse(text, Path::new("r.toml")).unwrap();
    assert_eq!(rules.decide("git push origin main"), CommandDecision::Allow);
    assert_eq!(
        rules.decide("cd a && git push origin main"),
        CommandDecision::Allow
    );
    for command in ["git push origin main --force", "git push -f origin main"] {
        assert!(
            matches!(rules.decide(command), CommandDecision::Ask { .. }),
            "{command}"
        );
    }
}

#[test]
fn a_rule_has_a_prefix_or_a_command_of_literal_words() {
    let both = "[[rule]]\ndecision = \"deny\"\nprefix = \"a\"\ncommand = \"a b\"\n";
    assert_eq!(
        CommandRules::parse(both, Path::new("r.toml"))
            .unwrap_err()
            .to_string(),
        "Invalid rule in r.toml, rule 1 (\"a\"): a rule has one of prefix, command or tool"
    );
    let dynamic = "[[rule]]\ndecision = \"deny\"\nprefix = \"rm $X\"\n";
    assert_eq!(
        CommandRules::parse(dynamic, Path::new("r.toml"))
            .unwrap_err()
            .to_string(),
        "Invalid rule in r.toml, rule 1 (\"rm $X\"): the prefix must be literal words (no expansions, globs or substitutions)"
    );
}

#[test]
fn an_allow_prefix_allows_only_what_it_says_word_for_word() {
    let text = "[[rule]]\ndecision = \"ask\"\nprefix = \"git\"\n\n[[rule]]\ndecision = \"allow\"\nprefix = \"git status\"\n";
    let rules = CommandRules::parse(text, Path::new("r.toml")).unwrap();
    assert_eq!(rules.decide("git status --short"), CommandDecision::Allow);
    // Same flags as a deny would read them, but an allow matches words as written.
    assert!(matches!(
        rules.decide("git --no-pager status"),
        CommandDecision::Ask { .. }
    ));
}

#[test]
fn tool_rules_allow_ask_or_deny_tools_by_name_pattern() {
    let text = r#"
[[rule]]
decision = "ask"
tool = "mcp__github__*"
match = ["mcp__github__create_issue"]
not_match = ["mcp__gitlab__x"]

[[rule]]
decision = "allow"
tool = "mcp__github__get_*"

[[rule]]
decision = "deny"
tool = "mcp__github__delete_repo"
"#;
    let rules = CommandRules::parse(text, Path::new("r.toml")).unwrap();
    assert!(matches!(
        rules.decide_tool("mcp__github__create_issue"),
        CommandDecision::Ask { .. }
    ));
    assert_eq!(
        rules.decide_tool("mcp__github__get_issue"),
        CommandDecision::Allow
    );
    assert!(matches!(
        rules.decide_tool("mcp__github__delete_repo"),
        CommandDecision::Deny { .. }
    ));
    assert_eq!(rules.decide_tool("read"), CommandDecision::Allow);
    // Tool rules never match a bash command.
    assert_eq!(
        rules.decide("mcp__github__delete_repo"),
        CommandDecision::Allow
    );
}
