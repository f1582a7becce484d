//! What a simple command really runs, for the rules: the command as written, then each
//! command a wrapper runs in its place (`env`, `sudo`, `doas`, `nice`, `ionice`, `timeout`,
//! `xargs`, `command`, `exec`, `nohup`, `builtin`, `time`, `setsid`, `stdbuf`, `chroot`,
//! `find -exec`), and the commands of a literal script given to `sh -c`, `bash -c`, `eval`
//! or `env -S`, parsed in turn. And its shape: name, flags and positional words, so that
//! `rm -rf`, `rm -fr`, `rm -r -f` and `rm --recursive --force` are one command.

use std::collections::BTreeSet;

use super::parse::{Word, simple_commands};

/// How deep `sh -c '… sh -c "…" …'` is followed.
const MAX_SCRIPT_DEPTH: usize = 3;

/// A wrapper: the options that take a value, and how many positional words come before the
/// command it runs.
struct Wrapper {
    name: &'static str,
    /// Short (`-u`) and long (`--user`) options whose value is the next word.
    valued: &'static [&'static str],
    /// Positional words before the command (`timeout DURATION cmd`, `chroot DIR cmd`).
    skip_positionals: usize,
}

const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        name: "env",
        valued: &["-u", "--unset", "-C", "--chdir"],
        skip_positionals: 0,
    },
    Wrapper {
        name: "sudo",
        valued: &[
            "-u",
            "-g",
            "-h",
            "-p",
            "-C",
            "-D",
            "-r",
            "-t",
            "-U",
            "-T",
            "-R",
            "--user",
            "--group",
            "--host",
            "--prompt",
            "--close-from",
            "--chdir",
            "--role",
            "--type",
            "--other-user",
            "--command-timeout",
            "--chroot",
        ],
        skip_positionals: 0,
    },
    Wrapper {
        name: "doas",
        valued: &["-u", "-C"],
        skip_positionals: 0,
    },
    Wrapper {
        name: "nice",
        valued: &["-n", "--adjustment"],
        skip_positionals: 0,
    },
    Wrapper {
        name: "ionice",
        valued: &["-c", "-n", "-t", "--class", "--classdata"],
        skip_positionals: 0,
    },
    Wrapper {
        name: "timeout",
        valued: &["-s", "-k", "--signal", "--kill-after"],
        skip_positionals: 1,
    },
    Wrapper {
        name: "xargs",
        valued: &[
            "-a",
            "-d",
            "-E",
            "-I",
            "-L",
            "-n",
            "-P",
            "-s",
            "--arg-file",
            "--delimiter",
            "--eof",
            "--replace",
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        ],
        skip_positionals: 0,
    },
    Wrapper {
        name: "command",
        valued: &[],
        skip_positionals: 0,
    },
    Wrapper {
        name: "exec",
        valued: &["-a"],
        skip_positionals: 0,
    },
    Wrapper {
        name: "nohup",
        valued: &[],
        skip_positionals: 0,
    },
    Wrapper {
        name: "builtin",
        valued: &[],
        skip_positionals: 0,
    },
    Wrapper {
        name: "time",
        valued: &["-f", "-o", "--format", "--output"],
        skip_positionals: 0,
    },
    Wrapper {
        name: "setsid",
        valued: &[],
        skip_positionals: 0,
    },
    Wrapper {
        name: "stdbuf",
        valued: &["-i", "-o", "-e", "--input", "--output", "--error"],
        skip_positionals: 0,
    },
    Wrapper {
        name: "chroot",
        valued: &["--userspec", "--groups"],
        skip_positionals: 1,
    },
];

/// Shells whose `-c SCRIPT` is parsed as a command of its own.
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "ash", "busybox"];

/// Long options that are another spelling of a short one, per command.
const ALIASES: &[(&str, &str, &str)] = &[
    ("rm", "--recursive", "r"),
    ("rm", "R", "r"),
    ("rm", "--force", "f"),
    ("rm", "--dir", "d"),
    ("cp", "--recursive", "r"),
    ("cp", "R", "r"),
    ("cp", "--force", "f"),
    ("mv", "--force", "f"),
    ("git", "--force", "f"),
    ("chmod", "--recursive", "R"),
    ("chown", "--recursive", "R"),
    ("chgrp", "--recursive", "R"),
];

/// Short options whose value is the next word (or the rest of the cluster), per command.
const VALUED_SHORT: &[(&str, char)] = &[("git", 'C'), ("git", 'c')];

/// A command that was written, or one a wrapper or script runs in its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Candidate {
    /// Its words.
    pub words: Vec<Word>,
}

/// Why what a command runs cannot be told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Hidden {
    /// A script given to a shell is only known at run time: it could be anything.
    Dynamic(String),
    /// A literal script that cannot be parsed (or nests too deep): its text and why.
    Unparsable {
        /// The script.
        script: String,
        /// Why.
        reason: String,
    },
}

/// The command as written and every command it runs in its place (see the module doc).
pub(crate) fn candidates(words: &[Word]) -> Result<Vec<Candidate>, Hidden> {
    let mut out = Vec::new();
    add_candidates(words, 0, &mut out)?;
    Ok(out)
}

fn add_candidates(words: &[Word], depth: usize, out: &mut Vec<Candidate>) -> Result<(), Hidden> {
    if words.is_empty() {
        return Ok(());
    }
    out.push(Candidate {
        words: words.to_vec(),
    });
    let Some(name) = words[0].literal().map(basename) else {
        return Ok(());
    };
    if let Some(script) = script_of(name, words) {
        let Some(script) = script else {
            return Err(Hidden::Dynamic(format!(
                "the script given to {name} is only known when it runs"
            )));
        };
        if depth >= MAX_SCRIPT_DEPTH {
            return Err(Hidden::Unparsable {
                script,
                reason: "scripts nested too deeply".to_owned(),
            });
        }
        let inner = simple_commands(&script).map_err(|error| Hidden::Unparsable {
            reason: format!("the script given to {name} cannot be parsed: {error}"),
            script: script.clone(),
        })?;
        for command in inner {
            add_candidates(&command, depth + 1, out)?;
        }
        return Ok(());
    }
    if name == "find" {
        for command in find_exec_commands(words) {
            add_candidates(command, depth, out)?;
        }
        return Ok(());
    }
    if let Some(rest) = unwrap(name, words) {
        add_candidates(rest, depth, out)?;
    }
    Ok(())
}

/// A script a command runs: `Some(Some(text))` for a literal one, `Some(None)` for one only
/// known at run time, `None` when the command runs no script.
fn script_of(name: &str, words: &[Word]) -> Option<Option<String>> {
    if name == "eval" {
        let texts: Option<Vec<&str>> = words[1..].iter().map(Word::literal).collect();
        return Some(texts.map(|texts| texts.join(" ")));
    }
    if name == "env" {
        // `env -S 'cmd args'` / `--split-string=…`: the value is a command line.
        for (i, word) in words.iter().enumerate().skip(1) {
            let text = word.literal()?;
            if text == "-S" || text == "--split-string" {
                return Some(words.get(i + 1).and_then(Word::literal).map(str::to_owned));
            }
            if let Some(value) = text.strip_prefix("--split-string=") {
                return Some(Some(value.to_owned()));
            }
            if let Some(value) = text.strip_prefix("-S") {
                return Some(Some(value.to_owned()));
            }
            if !text.starts_with('-') {
                return None;
            }
        }
        return None;
    }
    if !SHELLS.contains(&name) {
        return None;
    }
    // `bash -c SCRIPT`, `bash -lc SCRIPT`, `sh -e -c SCRIPT`: options up to the one with `c`.
    for (i, word) in words.iter().enumerate().skip(1) {
        let text = word.literal()?;
        if !text.starts_with('-') || text == "-" || text == "--" {
            return None;
        }
        if !text.starts_with("--") && text.contains('c') {
            return Some(words.get(i + 1).and_then(Word::literal).map(str::to_owned));
        }
    }
    None
}

/// The commands of `find … -exec CMD … ;` (also `-execdir`, `-ok`, `-okdir`, ended by `+`).
fn find_exec_commands(words: &[Word]) -> Vec<&[Word]> {
    let mut commands = Vec::new();
    let mut i = 1;
    while i < words.len() {
        let starts = matches!(
            words[i].literal(),
            Some("-exec" | "-execdir" | "-ok" | "-okdir")
        );
        if !starts {
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut end = start;
        while end < words.len() && !matches!(words[end].literal(), Some(";" | "+")) {
            end += 1;
        }
        commands.push(&words[start..end]);
        i = end + 1;
    }
    commands
}

/// The command a wrapper runs, if `name` is a wrapper and one follows its options.
fn unwrap<'a>(name: &str, words: &'a [Word]) -> Option<&'a [Word]> {
    let wrapper = WRAPPERS.iter().find(|w| w.name == name)?;
    let mut i = 1;
    let mut positionals = 0;
    while i < words.len() {
        let Some(text) = words[i].literal() else {
            // An option or command only known at run time: the rest starts here.
            return Some(&words[i..]);
        };
        if text == "--" {
            i += 1;
            continue;
        }
        if name == "env" && is_assignment(text) {
            i += 1;
            continue;
        }
        if text.starts_with('-') && text.len() > 1 {
            let option = text.split_once('=').map_or(text, |(option, _)| option);
            let valued = wrapper.valued.contains(&option) && !text.contains('=');
            // `nice -n5`, `sudo -uroot`: a short valued option with its value attached.
            let attached = option.len() > 2 && !option.starts_with("--");
            i += if valued && !attached { 2 } else { 1 };
            continue;
        }
        if positionals < wrapper.skip_positionals {
            positionals += 1;
            i += 1;
            continue;
        }
        return Some(&words[i..]);
    }
    None
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

/// The last component of a command name (`/usr/bin/rm` runs `rm`).
pub(crate) fn basename(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// A command's shape: name, flags (short ones one by one, long ones by name, aliases made
/// one), positional words. Flags may come in any order and anywhere after the name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    /// The command name's last component.
    pub name: String,
    /// `r`, `f`, `--force-with-lease`, …
    pub flags: BTreeSet<String>,
    /// The other words, in order (after `--` every word is one).
    pub positionals: Vec<String>,
    /// Some word after the name is only known at run time.
    pub dynamic: bool,
}

impl Shape {
    /// The shape of literal words (a rule's), or of a command's words with `Dyn` ones noted.
    /// `None` when the name itself is only known at run time.
    pub(crate) fn of(words: &[Word]) -> Option<Shape> {
        let name = basename(words.first()?.literal()?).to_owned();
        let mut shape = Shape {
            name,
            ..Shape::default()
        };
        let mut only_positionals = false;
        let mut words = words[1..].iter();
        while let Some(word) = words.next() {
            let Some(text) = word.literal() else {
                shape.dynamic = true;
                continue;
            };
            if only_positionals || text == "-" || !text.starts_with('-') {
                shape.positionals.push(text.to_owned());
            } else if text == "--" {
                only_positionals = true;
            } else if text.starts_with("--") {
                let long = text.split_once('=').map_or(text, |(long, _)| long);
                shape.flags.insert(shape.alias(long));
            } else {
                let cluster: Vec<char> = text[1..].chars().collect();
                for (i, flag) in cluster.iter().enumerate() {
                    shape.flags.insert(shape.alias(&flag.to_string()));
                    if VALUED_SHORT.contains(&(shape.name.as_str(), *flag)) {
                        if i + 1 == cluster.len() {
                            // Its value is the next word, not a positional.
                            words.next();
                        }
                        break;
                    }
                }
            }
        }
        Some(shape)
    }

    fn alias(&self, flag: &str) -> String {
        ALIASES
            .iter()
            .find(|(command, spelling, _)| *command == self.name && *spelling == flag)
            .map_or_else(
                || flag.to_owned(),
                |(_, _, canonical)| (*canonical).to_owned(),
            )
    }

    /// Whether this (a command's) shape has every flag of `rule` and starts with its
    /// positional words.
    pub(crate) fn covers(&self, rule: &Shape) -> bool {
        self.name == rule.name
            && rule.flags.is_subset(&self.flags)
            && self.positionals.starts_with(&rule.positionals)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn lit(words: &[&str]) -> Vec<Word> {
        words.iter().map(|w| Word::Lit((*w).to_owned())).collect()
    }

    fn inner(command: &str) -> Vec<String> {
        let words = simple_commands(command).unwrap().remove(0);
        candidates(&words)
            .unwrap()
            .iter()
            .map(|c| c.words.iter().map(Word::text).collect::<Vec<_>>().join(" "))
            .collect()
    }

    #[test]
    fn wrappers_and_scripts_give_the_command_they_run() {
        assert_eq!(
            inner("env -i A=1 rm -rf x"),
            ["env -i A=1 rm -rf x", "rm -rf x"]
        );
        assert_eq!(
            inner("sudo -u root nice -n 5 rm -rf x"),
            [
                "sudo -u root nice -n 5 rm -rf x",
                "nice -n 5 rm -rf x",
                "rm -rf x"
            ]
        );
        assert_eq!(
            inner("timeout -s KILL 5 rm x"),
            ["timeout -s KILL 5 rm x", "rm x"]
        );
        assert_eq!(inner("xargs -n 1 rm -rf"), ["xargs -n 1 rm -rf", "rm -rf"]);
        assert_eq!(
            inner("bash -lc 'cd a && rm -rf x'"),
            ["bash -lc cd a && rm -rf x", "cd a", "rm -rf x"]
        );
        assert_eq!(inner("eval rm -rf x"), ["eval rm -rf x", "rm -rf x"]);
        assert_eq!(inner("env -S 'rm -rf x'"), ["env -S rm -rf x", "rm -rf x"]);
        assert_eq!(
            inner("find . -name a -exec rm -rf {} \\;"),
            ["find . -name a -exec rm -rf {} ;", "rm -rf {}"]
        );
        let dynamic = simple_commands("bash -c \"$S\"").unwrap().remove(0);
        assert!(matches!(candidates(&dynamic), Err(Hidden::Dynamic(_))));
    }

    #[test]
    fn every_spelling_of_the_same_flags_has_the_same_shape() {
        let rule = Shape::of(&lit(&["rm", "-rf"])).unwrap();
        for spelling in [
            &["rm", "-rf", "x"][..],
            &["rm", "-fr", "x"],
            &["rm", "-r", "-f", "x"],
            &["rm", "x", "--recursive", "--force"],
            &["/bin/rm", "-Rf", "x"],
            &["rm", "-rfv", "x"],
        ] {
            assert!(
                Shape::of(&lit(spelling)).unwrap().covers(&rule),
                "{spelling:?}"
            );
        }
        assert!(!Shape::of(&lit(&["rm", "-r", "x"])).unwrap().covers(&rule));
        let push = Shape::of(&lit(&["git", "push", "--force"])).unwrap();
        assert!(
            Shape::of(&lit(&["git", "-C", "/p", "push", "origin", "-f"]))
                .unwrap()
                .covers(&push)
        );
        assert!(
            !Shape::of(&lit(&["git", "pull", "-f"]))
                .unwrap()
                .covers(&push)
        );
    }
}
