//! `rho-llama`: the process rho runs its local model in (llama.cpp), started by rho on the first
//! call to a `local/…` model and ended when rho closes its input. It reads calls from stdin and
//! writes their events to stdout, one JSON object per line (`rho_local::wire`).

use std::process::ExitCode;

fn main() -> ExitCode {
    if std::env::args_os().len() > 1 {
        eprintln!(
            "rho-llama runs rho's local model for rho, which starts it; it takes no arguments.\nUse `rho --model local/<file>` instead."
        );
        return ExitCode::from(2);
    }
    match rho_llama::serve(std::io::stdin().lock(), std::io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("rho-llama: cannot read its input: {error}");
            ExitCode::FAILURE
        }
    }
}
