//! The `rho` binary: flags, modes and exit codes. Everything below the edge lives in the library
//! crates; this file only wires them together.

mod acp;
mod argv;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod argv_mask;
mod auth;
mod branch_summary;
mod cli;
mod cli_checks;
mod export;
mod interactive;
mod local;
mod mcp;
mod model_choice;
mod model_scope;
mod output;
mod project_trust;
mod prompt_input;
mod remember;
mod rpc;
mod run;
mod session_builder;
mod session_choice;
mod session_files;
mod session_switch;
mod session_tree;
mod settings_save;
mod setup;
mod slash_host;
mod verify;
mod warnings;

use std::process::ExitCode;

use clap::error::ErrorKind;

/// Exit code of every failure before the first model call (contract §3).
pub const EXIT_PREFLIGHT: u8 = 2;

fn main() -> ExitCode {
    // First of all: the commands rho runs must not read its memory or environment (keys).
    rho_gate::sandbox::harden_process();
    // `rho verify`, `rho auth`, `rho model` and `rho mcp` are separate tools with their own arguments, so they are
    // routed before the main command line is parsed.
    let mut args = std::env::args_os().skip(1);
    match args.next() {
        Some(first) if first == "verify" => return ExitCode::from(verify::main(args)),
        Some(first) if first == "auth" => return ExitCode::from(auth::main(args)),
        Some(first) if first == "model" => return ExitCode::from(local::main(args)),
        Some(first) if first == "mcp" => return ExitCode::from(mcp::main(args)),
        _ => {}
    }
    // `rho acp [flags]` is `rho --mode acp [flags]`.
    let mut argv: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if argv.first().is_some_and(|first| first == "acp") {
        argv.splice(0..1, ["--mode".into(), "acp".into()]);
    }
    let parsed = cli::Cli::parse_args(argv);
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    argv_mask::mask_api_key();
    let cli = match parsed {
        Ok(cli) => cli,
        Err(cli_checks::CliError::Invalid(message)) => {
            eprintln!("Error: {message}");
            return ExitCode::from(EXIT_PREFLIGHT);
        }
        Err(cli_checks::CliError::Clap(error)) => {
            let code = match error.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => 0,
                _ => EXIT_PREFLIGHT,
            };
            if code == 0 {
                let _ = error.print();
            } else {
                // One clear line, as for every failure before the model is called.
                let text = error.to_string();
                let first = text.lines().next().unwrap_or("invalid arguments");
                let first = first.strip_prefix("error: ").unwrap_or(first);
                eprintln!("Error: {first} (see rho --help)");
            }
            return ExitCode::from(code);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("Error: cannot start the async runtime: {error}");
            return ExitCode::from(EXIT_PREFLIGHT);
        }
    };
    let outcome = runtime.block_on(run::run(cli));
    // A tool blocked in a system call (a read of a FIFO, say) must not keep an aborted run alive.
    runtime.shutdown_background();
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            eprintln!("Error: {error:#}");
            ExitCode::from(EXIT_PREFLIGHT)
        }
    }
}
