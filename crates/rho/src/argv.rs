//! Pi's argument spellings that clap cannot express, rewritten before clap sees them
//! (pi-reference §7.2):
//!
//! - multi-letter short flags (`-nt`, `-nbt`, `-nc`, `-ns`, `-np`, `-ne`, `-xt`, `-na`) become
//!   their long names;
//! - `-p`/`--print` takes the next argument as a message unless it starts with `@` or `-`, where
//!   a `---…` argument still counts as a message. clap would read `---x` as an unknown flag, so
//!   such a message is passed behind the hidden `--print-message` flag, keeping its position.

use std::ffi::OsString;

/// Hidden long flag that carries a `-p` message clap would otherwise read as a flag.
pub const PRINT_MESSAGE_FLAG: &str = "--print-message";

/// Pi's multi-letter short flags and their long names.
const SHORT_ALIASES: &[(&str, &str)] = &[
    ("-nt", "--no-tools"),
    ("-nbt", "--no-builtin-tools"),
    ("-nc", "--no-context-files"),
    ("-ns", "--no-skills"),
    ("-np", "--no-prompt-templates"),
    ("-ne", "--no-extensions"),
    ("-xt", "--exclude-tools"),
    ("-na", "--no-approve"),
];

/// Rewrites the arguments after the program name. Everything after a bare `--` is left alone.
pub fn rewrite(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut args = args.into_iter().peekable();
    while let Some(arg) = args.next() {
        let Some(text) = arg.to_str() else {
            out.push(arg);
            continue;
        };
        if text == "--" {
            out.push(arg);
            out.extend(args);
            break;
        }
        if let Some((_, long)) = SHORT_ALIASES.iter().find(|(short, _)| *short == text) {
            out.push(OsString::from(long));
            continue;
        }
        let is_print = text == "-p" || text == "--print";
        out.push(arg);
        if is_print
            && let Some(next) = args.peek().and_then(|next| next.to_str())
            && next.starts_with("---")
        {
            let message = format!("{PRINT_MESSAGE_FLAG}={next}");
            args.next();
            out.push(OsString::from(message));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(args: &[&str]) -> Vec<String> {
        rewrite(args.iter().map(OsString::from))
            .into_iter()
            .map(|arg| arg.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn multi_letter_short_flags_become_long_flags() {
        assert_eq!(
            rewritten(&["-nt", "-nbt", "-nc", "-ns", "-np", "-ne", "-p", "hi"]),
            [
                "--no-tools",
                "--no-builtin-tools",
                "--no-context-files",
                "--no-skills",
                "--no-prompt-templates",
                "--no-extensions",
                "-p",
                "hi"
            ]
        );
    }

    #[test]
    fn a_triple_dash_message_after_print_is_kept_as_a_message() {
        assert_eq!(
            rewritten(&["a", "-p", "---rule---", "b"]),
            ["a", "-p", "--print-message=---rule---", "b"]
        );
        assert_eq!(
            rewritten(&["--print", "---"]),
            ["--print", "--print-message=---"]
        );
    }

    #[test]
    fn other_arguments_after_print_are_left_to_clap() {
        assert_eq!(rewritten(&["-p", "@f.md", "hi"]), ["-p", "@f.md", "hi"]);
        assert_eq!(
            rewritten(&["-p", "--mode", "json"]),
            ["-p", "--mode", "json"]
        );
        assert_eq!(rewritten(&["-p"]), ["-p"]);
    }

    #[test]
    fn nothing_after_a_bare_double_dash_is_rewritten() {
        assert_eq!(rewritten(&["--", "-nt", "-p"]), ["--", "-nt", "-p"]);
    }

    #[test]
    fn a_short_alias_in_value_position_is_still_a_flag() {
        // Pi would take `-nt` as the model name; rho, like clap everywhere else, reads a dash
        // argument as a flag, so `--model` then reports its missing value.
        assert_eq!(rewritten(&["--model", "-nt"]), ["--model", "--no-tools"]);
    }
}
