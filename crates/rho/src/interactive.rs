//! `rho` in a terminal with no `-p` and no `--mode`: the session is built exactly as for `-p`
//! (`run::choose`, `run::build`) and handed to the terminal UI in `rho-tui`.

use std::path::Path;

use rho_tui::SessionInfo;

use crate::cli::Cli;
use crate::prompt_input::resolve_prompts;
use crate::run::{self, Built};
use crate::session_choice::SessionTarget;

/// Runs the interactive mode until the user leaves; `Err` is a failure before the screen opens.
pub async fn run(mut cli: Cli, target: SessionTarget, cwd: &Path) -> anyhow::Result<u8> {
    let chosen = run::choose(&mut cli, &target, cwd)?;
    // Messages on the command line are sent first, one after another, as Pi does.
    let initial = if cli.messages.is_empty() {
        Vec::new()
    } else {
        let prompts = resolve_prompts(&cli.messages, false, cwd)?;
        if !prompts.first.images.is_empty() {
            anyhow::bail!("@image arguments are not supported in the interactive mode yet");
        }
        std::iter::once(prompts.first.text)
            .chain(prompts.rest)
            .collect()
    };
    let Built {
        session,
        persistence,
        model,
        thinking,
        run_cwd,
        auto_compact,
        ..
    } = run::build(&cli, chosen, target)?;
    let info = SessionInfo {
        provider: model.provider.clone(),
        model_id: model.id.clone(),
        reasoning: model.reasoning,
        thinking,
        context_window: model.context_window,
        auto_compact,
        cwd: display_path(&run_cwd),
    };
    let outcome = rho_tui::run(session, info, initial).await;
    // The terminal is back to normal here, so these messages are readable.
    if let Some(persistence) = &persistence {
        if let Err(error) = persistence.sync() {
            eprintln!("Error: {error}");
        }
        for error in persistence.take_errors() {
            eprintln!("Error: the session was not fully saved: {error}");
        }
    }
    outcome?;
    Ok(0)
}

/// The path with the home directory shown as `~` (Pi's footer).
fn display_path(path: &Path) -> String {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty());
    match home.as_deref().and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => "~".to_owned(),
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}
