//! What a sign-in asks of the user in any mode: the authorization URL shown (and the browser
//! opened where there is one), the pasted-redirect fallback, and how long it may take.

use std::time::Duration;

use async_trait::async_trait;
use rho_mcp::auth::{Paste, SignInPrompt};

use crate::ui::{HostUi, NoticeLevel};

/// How long a sign-in may wait for the browser (Pi: 300 s).
pub const SIGN_IN_TIMEOUT: Duration = Duration::from_secs(300);

/// The sign-in prompt of a mode's UI: the URL as a notice, the browser opened, the redirect URL
/// asked for as a line of text.
pub struct UiSignInPrompt<'a> {
    ui: &'a dyn HostUi,
    server: String,
}

impl<'a> UiSignInPrompt<'a> {
    /// Asks through `ui` for server `server`.
    pub fn new(ui: &'a dyn HostUi, server: &str) -> Self {
        UiSignInPrompt {
            ui,
            server: server.to_owned(),
        }
    }
}

#[async_trait]
impl SignInPrompt for UiSignInPrompt<'_> {
    fn authorize(&self, url: &str) {
        self.ui.notify(
            &format!(
                "Sign in to MCP server \"{}\" in your browser:\n{url}",
                self.server
            ),
            NoticeLevel::Info,
        );
        open_browser(url);
    }

    async fn pasted(&self) -> Paste {
        let title = format!(
            "Waiting for sign-in to \"{}\". If the browser cannot reach this machine, paste the URL it was redirected to.",
            self.server
        );
        match self
            .ui
            .input(&title, "http://127.0.0.1:.../callback?code=...")
            .await
        {
            Some(text) if !text.trim().is_empty() => Paste::Url(text),
            _ => Paste::Cancelled,
        }
    }
}

/// Opens `url` in the user's browser: `$BROWSER` (the first of a `:` list), else `xdg-open`
/// when a display is there; nothing otherwise (the URL is shown anyway). The browser is a
/// process of its own, waited for beside the runtime, so none is left unreaped.
pub fn open_browser(url: &str) {
    let browser = std::env::var("BROWSER").ok().and_then(|list| {
        list.split(':')
            .map(str::trim)
            .find(|b| !b.is_empty())
            .map(str::to_owned)
    });
    let has_display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()));
    let program = match browser {
        Some(program) => program,
        None if has_display => "xdg-open".to_owned(),
        None => return,
    };
    let spawned = std::process::Command::new(&program)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Ok(mut child) = spawned {
        std::thread::spawn(move || {
            let _ = child.wait();
        });
    }
}
