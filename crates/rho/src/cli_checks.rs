//! The checks Pi 1.6 makes of its flags beyond their syntax, in Pi's words (`dist/cli/args.js`,
//! `dist/main.js`); rho exits 2 where Pi exits 1 (the contract's code for bad flags).

use std::ffi::OsString;

use rho_ai::ThinkingLevel;
use rho_host::tool_selection::tool_list_error;

use crate::cli::Cli;

/// Why the command line was refused.
#[derive(Debug)]
pub enum CliError {
    /// clap's own error (unknown flags, bad values, `--help`, `--version`).
    Clap(clap::Error),
    /// One of Pi's checks failed: the message, in Pi's words, without `Error: `.
    Invalid(String),
}

impl From<clap::Error> for CliError {
    fn from(error: clap::Error) -> Self {
        CliError::Clap(error)
    }
}

/// The checks Pi makes while it reads the arguments, before clap sees them (clap would word
/// these failures its own way): `--mode`, `--name`, `--tools`, `--use-theme`, `--tui-mode`.
/// Nothing after a bare `--` is a flag.
pub fn check_raw(args: &[OsString]) -> Result<(), String> {
    let texts: Vec<&str> = args
        .iter()
        .map(|arg| arg.to_str().unwrap_or_default())
        .take_while(|arg| *arg != "--")
        .collect();
    let value_of = |index: usize| texts.get(index + 1).copied();
    for (index, arg) in texts.iter().enumerate() {
        let next = value_of(index);
        let missing = next.is_none_or(|value| value.starts_with('-'));
        match *arg {
            "--mode" if missing => return Err("--mode requires text, json, or rpc".to_owned()),
            "--mode" => {
                let mode = next.unwrap_or_default();
                // `acp` is rho's own (`rho acp`); the message keeps Pi's words.
                if !["text", "json", "rpc", "acp"].contains(&mode) {
                    return Err(format!(
                        "Invalid mode \"{mode}\". Valid values: text, json, rpc"
                    ));
                }
            }
            "--name" | "-n" if next.is_none() => return Err("--name requires a value".to_owned()),
            "--use-theme" if missing => {
                return Err("--use-theme requires a theme name".to_owned());
            }
            "--tui-mode" if missing => {
                return Err("--tui-mode requires regular or fullscreen".to_owned());
            }
            "--tui-mode" => {
                let mode = next.unwrap_or_default();
                if !["regular", "fullscreen"].contains(&mode) {
                    return Err(format!(
                        "Invalid TUI mode \"{mode}\". Valid values: regular, fullscreen"
                    ));
                }
                if mode == "regular" {
                    return Err(
                        "--tui-mode regular is not supported: rho's terminal UI is full-screen only"
                            .to_owned(),
                    );
                }
            }
            "--use-theme" => {
                let name = next.unwrap_or_default();
                if !is_builtin_theme(name) {
                    return Err(format!(
                        "Theme \"{name}\" not found: rho has the dark and light themes (and auto, or dark/light, to follow the terminal)"
                    ));
                }
            }
            "--tools" | "-t" if next.is_some() => {
                let entries = split_list(next.unwrap_or_default());
                if let Some(error) = tool_list_error(&entries) {
                    return Err(format!("{arg}: {error}"));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// A `--use-theme` value rho can show: `dark`, `light`, `auto`, or a `light/dark` pair (Pi's
/// `<name[/name]>`: one for each background, which is rho's `auto`).
fn is_builtin_theme(name: &str) -> bool {
    let builtin = |part: &str| ["dark", "light"].contains(&part);
    match name.split_once('/') {
        Some((first, second)) => builtin(first) && builtin(second),
        None => builtin(name) || name == "auto",
    }
}

/// The theme `--use-theme` names, as the `theme` setting spells it (a pair follows the
/// terminal's background: `auto`).
pub fn use_theme_setting(name: &str) -> &str {
    if name.contains('/') { "auto" } else { name }
}

/// Pi's list flags: split on `,`, trimmed, empty entries dropped.
pub fn split_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Pi's session id rule: `^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`.
pub fn is_valid_session_id(id: &str) -> bool {
    let bytes = id.as_bytes();
    let (Some(first), Some(last)) = (bytes.first(), bytes.last()) else {
        return false;
    };
    first.is_ascii_alphanumeric()
        && last.is_ascii_alphanumeric()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The checks of the parsed flags: `--session-id`, `--name`, and the flags that ask for
/// something rho cannot do (no flag is silently ignored). An invalid `--thinking` is Pi's
/// warning, and the flag is then ignored.
pub fn check_parsed(cli: &Cli) -> Result<(), String> {
    if let Some(text) = cli.thinking.as_deref()
        && ThinkingLevel::parse(text).is_none()
    {
        crate::warnings::warn(format_args!(
            "Invalid thinking level \"{text}\". Valid values: {}",
            ThinkingLevel::ALL.map(ThinkingLevel::as_str).join(", ")
        ));
    }
    if let Some(id) = &cli.session_id {
        let conflicting: Vec<&str> = [
            (cli.session.is_some(), "--session"),
            (cli.continue_session, "--continue"),
            (cli.resume, "--resume"),
        ]
        .into_iter()
        .filter_map(|(given, flag)| given.then_some(flag))
        .collect();
        if !conflicting.is_empty() {
            return Err(format!(
                "--session-id cannot be combined with {}",
                conflicting.join(", ")
            ));
        }
        if !is_valid_session_id(id) {
            return Err("Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character".to_owned());
        }
    }
    if cli
        .name
        .as_deref()
        .is_some_and(|name| name.trim().is_empty())
    {
        return Err("--name requires a non-empty value".to_owned());
    }
    if !cli.extensions.is_empty() {
        return Err("-e/--extension: rho cannot load extensions yet".to_owned());
    }
    if !cli.themes.is_empty() {
        return Err("--theme: rho's terminal UI has no themes to load".to_owned());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn raw(args: &[&str]) -> Result<(), String> {
        check_raw(&args.iter().map(OsString::from).collect::<Vec<_>>())
    }

    #[test]
    fn use_theme_takes_rhos_themes_and_a_pair_follows_the_terminal() {
        for name in ["dark", "light", "auto", "light/dark", "dark/light"] {
            assert_eq!(raw(&["--use-theme", name]), Ok(()), "{name}");
        }
        assert!(raw(&["--use-theme", "dark/solarized"]).is_err());
        assert_eq!(use_theme_setting("light"), "light");
        assert_eq!(use_theme_setting("light/dark"), "auto");
    }

    #[test]
    fn raw_checks_use_pis_words() {
        assert_eq!(
            raw(&["--mode"]).unwrap_err(),
            "--mode requires text, json, or rpc"
        );
        assert_eq!(
            raw(&["--mode", "-p"]).unwrap_err(),
            "--mode requires text, json, or rpc"
        );
        assert_eq!(
            raw(&["--mode", "xml"]).unwrap_err(),
            "Invalid mode \"xml\". Valid values: text, json, rpc"
        );
        assert_eq!(raw(&["-n"]).unwrap_err(), "--name requires a value");
        assert_eq!(
            raw(&["-t", "read,+grep"]).unwrap_err(),
            "-t: tool names cannot be mixed with +name or -name entries"
        );
        assert_eq!(
            raw(&["--tools", "+gr*"]).unwrap_err(),
            "--tools: +name and -name entries take exact tool names, not patterns: +gr*"
        );
        assert_eq!(
            raw(&["--tui-mode", "wide"]).unwrap_err(),
            "Invalid TUI mode \"wide\". Valid values: regular, fullscreen"
        );
        assert_eq!(
            raw(&["--mode", "json", "-t", "+grep,-write", "-n", "x"]),
            Ok(())
        );
        assert_eq!(raw(&["--", "--mode"]), Ok(()));
    }

    #[test]
    fn session_ids_follow_pis_rule() {
        for id in ["a", "A1", "my-session_2.0", "0"] {
            assert!(is_valid_session_id(id), "{id}");
        }
        for id in ["", "-a", "a-", ".a", "a b", "é", "a/b"] {
            assert!(!is_valid_session_id(id), "{id}");
        }
    }
}
