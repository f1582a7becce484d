//! One command in, its response out (Pi's `handleCommand`): one function per command, in
//! `commands/`. Each gets a [`Reply`] it must consume, so every request is answered exactly
//! once. Commands that wait — a prompt's run, `abort`, the session switches, `bash`, key
//! resolution — answer from their own task, so the next line is read at once.

use std::sync::Arc;

use super::commands::{model, run, session, state};
use super::host::Host;
use super::reply::Reply;
use rho_rpc::{Command, Request};

/// Runs `request`; its response is written now or by the task the command started.
pub fn dispatch(host: &Arc<Host>, request: Request) {
    let Request { id, command } = request;
    let reply = Reply::new(id.clone(), command.name(), host.output.clone());
    match command {
        Command::Prompt {
            message,
            images,
            streaming_behavior,
        } => run::prompt(host, reply, message, images, streaming_behavior),
        Command::Steer { message, images } => run::steer(host, reply, message, images),
        Command::FollowUp { message, images } => run::follow_up(host, reply, message, images),
        Command::Abort => run::abort(host, reply),
        Command::AbortRetry => run::abort_retry(host, reply),
        Command::Compact {
            custom_instructions,
        } => run::compact(host, reply, custom_instructions),
        Command::SetAutoCompaction { enabled } => run::set_auto_compaction(host, reply, enabled),
        Command::SetAutoRetry { enabled } => run::set_auto_retry(host, reply, enabled),
        Command::Bash {
            command,
            exclude_from_context,
        } => run::bash(host, reply, id, command, exclude_from_context),
        Command::ClearQueue => run::clear_queue(host, reply),
        Command::GetEntries { since } => state::get_entries(host, reply, since),
        Command::GetTree => state::get_tree(host, reply),
        Command::GetAvailableThinkingLevels => model::get_available_thinking_levels(host, reply),
        Command::AbortBash => run::abort_bash(host, reply),
        Command::GetState => state::get_state(host, reply),
        Command::GetMessages => state::get_messages(host, reply),
        Command::GetSessionStats => state::get_session_stats(host, reply),
        Command::GetLastAssistantText => state::get_last_assistant_text(host, reply),
        Command::GetCommands => state::get_commands(host, reply),
        Command::SetModel { provider, model_id } => {
            model::set_model(host, reply, provider, model_id)
        }
        Command::CycleModel => model::cycle_model(host, reply),
        Command::GetAvailableModels => model::get_available_models(host, reply),
        Command::SetThinkingLevel { level } => model::set_thinking_level(host, reply, level),
        Command::CycleThinkingLevel => model::cycle_thinking_level(host, reply),
        Command::SetSteeringMode { mode } => model::set_steering_mode(host, reply, mode),
        Command::SetFollowUpMode { mode } => model::set_follow_up_mode(host, reply, mode),
        Command::NewSession { parent_session } => session::new_session(host, reply, parent_session),
        Command::SwitchSession { session_path } => {
            session::switch_session(host, reply, session_path)
        }
        Command::Fork { entry_id } => session::fork(host, reply, entry_id),
        Command::Clone => session::clone(host, reply),
        Command::GetForkMessages => session::get_fork_messages(host, reply),
        Command::SetSessionName { name } => session::set_session_name(host, reply, name),
        Command::ExportHtml { output_path } => session::export_html(host, reply, output_path),
    }
}
