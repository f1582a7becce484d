//! `/mcp` in `-p` and `--mode json`: nobody to ask, so a question goes unanswered; notices go
//! to stdout in `-p` (they are the run's output) and to stderr in `--mode json` (stdout is
//! events only).

use async_trait::async_trait;
use rho_host::ui::{HostUi, NoticeLevel};

/// Notices printed, questions unanswered.
pub struct PrintUi {
    /// `--mode json`: notices go to stderr.
    pub json: bool,
}

#[async_trait]
impl HostUi for PrintUi {
    fn notify(&self, message: &str, level: NoticeLevel) {
        let text = match level {
            NoticeLevel::Info => message.to_owned(),
            other => format!("{}: {message}", other.as_str()),
        };
        if self.json || level == NoticeLevel::Error {
            eprintln!("{text}");
        } else {
            println!("{text}");
        }
    }

    fn interactive(&self) -> bool {
        false
    }

    async fn select(&self, _title: &str, _options: &[String]) -> Option<String> {
        None
    }

    async fn confirm(&self, _title: &str, _message: &str) -> Option<bool> {
        None
    }

    async fn input(&self, _title: &str, _placeholder: &str) -> Option<String> {
        None
    }
}
