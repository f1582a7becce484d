//! Writers for the non-interactive modes: JSON Lines and print.

use std::io::Write;

use rho_agent::AgentMessage;
use serde::Serialize;

/// Writes one JSON value as a line on stdout and flushes, so a reader like `jq` sees it at once.
/// A closed stdout (the reader went away) is not an error worth stopping the run for.
pub fn write_json_line(value: &impl Serialize) {
    let Ok(mut line) = serde_json::to_vec(value) else {
        return;
    };
    line.push(b'\n');
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(&line);
    let _ = stdout.flush();
}

/// Print mode: every text block of the last assistant message, each followed by a newline.
/// Returns the error text when that message failed.
pub fn print_final_answer(messages: &[AgentMessage]) -> Result<(), String> {
    let Some(last) = messages.last().and_then(AgentMessage::as_assistant) else {
        return Ok(());
    };
    if last.stop_reason.is_failure() {
        let reason = match last.stop_reason {
            rho_ai::StopReason::Aborted => "aborted",
            _ => "error",
        };
        let text = last
            .error_message
            .clone()
            .unwrap_or_else(|| format!("Request {reason}"));
        return Err(text);
    }
    let mut stdout = std::io::stdout().lock();
    for block in &last.content {
        if let Some(text) = block.as_text() {
            let _ = writeln!(stdout, "{text}");
        }
    }
    let _ = stdout.flush();
    Ok(())
}
