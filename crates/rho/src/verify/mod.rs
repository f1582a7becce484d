//! `rho verify [FILE|-] [--json]`: checks a JSON-mode event log (or a session file) against the
//! contract's rule for a run that really succeeded (§1.8, §3). Exit 0 verified, 1 not verified,
//! 2 input that cannot be checked.

pub mod check;
pub mod input;
pub mod report;

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;

use clap::Parser;
use clap::error::ErrorKind;

use input::InputError;

/// Exit status for input that cannot be read or parsed.
const EXIT_INVALID_INPUT: u8 = 2;

/// `rho verify`'s own arguments (parsed apart from the main command line).
#[derive(Debug, Parser)]
#[command(
    name = "rho verify",
    about = "Check that a run really succeeded: every tool call started, ended, was timed and \
             answered; turns paired; settled `completed`; last tool batch without errors."
)]
pub struct VerifyArgs {
    /// A `rho --mode json` log or a session file; `-` or nothing reads stdin.
    pub file: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Reads the whole input named by `file` (stdin for `None` or `-`).
fn read_input(file: Option<&PathBuf>) -> Result<Vec<u8>, InputError> {
    let mut bytes = Vec::new();
    match file {
        Some(path) if path.as_os_str() != "-" => {
            bytes = std::fs::read(path).map_err(|error| InputError::Unreadable {
                source_name: path.display().to_string(),
                message: error.to_string(),
            })?;
        }
        _ => {
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|error| InputError::Unreadable {
                    source_name: "stdin".into(),
                    message: error.to_string(),
                })?;
        }
    }
    Ok(bytes)
}

/// Runs `rho verify` with the arguments after `verify`; returns the exit status.
pub fn main(args: impl IntoIterator<Item = OsString>) -> u8 {
    let argv = std::iter::once(OsString::from("rho verify")).chain(args);
    let args = match VerifyArgs::try_parse_from(argv) {
        Ok(args) => args,
        Err(error) => {
            if matches!(
                error.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) {
                let _ = error.print();
                return 0;
            }
            let text = error.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            eprintln!("Error: {first} (see rho verify --help)");
            return EXIT_INVALID_INPUT;
        }
    };
    let lines = match read_input(args.file.as_ref()).and_then(|b| input::parse_lines(&b)) {
        Ok(lines) => lines,
        Err(error) => {
            eprintln!("Error: {error}");
            return EXIT_INVALID_INPUT;
        }
    };
    let report = check::check(&lines);
    let text = if args.json {
        format!("{}\n", report::to_json(&report))
    } else {
        report::to_text(&report)
    };
    // A closed stdout (piped into `head`) must not turn a verdict into a panic.
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
    report.exit_code()
}

#[cfg(test)]
mod tests;
