//! The page: document skeleton, the session header with its totals, and the stylesheet.

use rho_agent::AgentMessage;
use rho_ai::Usage;
use rho_session::SessionHeader;

use super::messages::render_messages;
use super::text::{escape, format_tokens};

/// What the page says about the session itself (from the session file's header line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportHeader {
    /// The session id.
    pub id: String,
    /// When the session started, as written in the header (ISO 8601).
    pub timestamp: String,
    /// The working directory the session ran in.
    pub cwd: String,
    /// The session this one was forked from, if any.
    pub parent_session: Option<String>,
}

impl From<&SessionHeader> for ExportHeader {
    fn from(header: &SessionHeader) -> Self {
        ExportHeader {
            id: header.id.clone(),
            timestamp: header.timestamp.clone(),
            cwd: header.cwd.clone(),
            parent_session: header.parent_session.clone(),
        }
    }
}

/// The stylesheet, inlined into every page so the file stands alone.
pub const STYLE: &str = include_str!("style.css");

/// Renders a session as one self-contained HTML page: no external assets and no script (a
/// content security policy forbids both), every piece of message text escaped.
pub fn render_html(header: &ExportHeader, name: Option<&str>, messages: &[AgentMessage]) -> String {
    let title = match name {
        Some(name) => name.to_owned(),
        None => format!("Session {}", header.id),
    };
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         img-src data:; style-src 'unsafe-inline'\">\n\
         <title>{title}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        title = escape(&title),
        body = render_body(header, &title, messages),
    )
}

/// The page's body: header with totals, the transcript, a footer.
pub fn render_body(header: &ExportHeader, title: &str, messages: &[AgentMessage]) -> String {
    format!(
        "<header class=\"session\">\n<h1>{}</h1>\n<dl>\n{}</dl>\n</header>\n<main>\n{}</main>\n\
         <footer>Exported by rho {}</footer>\n",
        escape(title),
        info_rows(header, messages),
        render_messages(messages),
        env!("CARGO_PKG_VERSION"),
    )
}

/// The header's facts and totals, as Pi's export lists them.
fn info_rows(header: &ExportHeader, messages: &[AgentMessage]) -> String {
    let totals = Totals::of(messages);
    let mut rows = vec![
        ("Session", escape(&header.id)),
        ("Date", escape(&header.timestamp)),
        ("Directory", escape(&header.cwd)),
    ];
    if let Some(parent) = &header.parent_session {
        rows.push(("Forked from", escape(parent)));
    }
    let models = if totals.models.is_empty() {
        "unknown".to_owned()
    } else {
        totals.models.join(", ")
    };
    rows.push(("Models", escape(&models)));
    rows.push(("Messages", totals.message_counts()));
    rows.push(("Tool calls", totals.tool_calls.to_string()));
    rows.push(("Tokens", totals.token_counts()));
    let u = &totals.usage.cost;
    let cost = u.input + u.output + u.cache_read + u.cache_write;
    rows.push(("Cost", format!("${cost:.3}")));
    rows.iter()
        .map(|(label, value)| format!("<dt>{label}</dt><dd>{value}</dd>\n"))
        .collect()
}

#[derive(Default)]
struct Totals {
    user: usize,
    assistant: usize,
    tool_results: usize,
    custom: usize,
    compactions: usize,
    branch_summaries: usize,
    tool_calls: usize,
    usage: Usage,
    models: Vec<String>,
}

impl Totals {
    fn of(messages: &[AgentMessage]) -> Totals {
        let mut t = Totals::default();
        for message in messages {
            match message.role() {
                "user" => t.user += 1,
                "assistant" => t.assistant += 1,
                "toolResult" => t.tool_results += 1,
                "compactionSummary" => t.compactions += 1,
                "branchSummary" => t.branch_summaries += 1,
                // As Pi counts: extension messages, shown or not; `bashExecution` is not one.
                "custom" => t.custom += 1,
                _ => {}
            }
            if let Some(a) = message.as_assistant() {
                t.usage.add(&a.usage);
                t.tool_calls += a.tool_calls().count();
                let model = format!("{}/{}", a.provider, a.model);
                if !t.models.contains(&model) {
                    t.models.push(model);
                }
            }
        }
        t
    }

    fn message_counts(&self) -> String {
        let parts: Vec<String> = [
            (self.user, "user"),
            (self.assistant, "assistant"),
            (self.tool_results, "tool results"),
            (self.custom, "custom"),
            (self.compactions, "compactions"),
            (self.branch_summaries, "branch summaries"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        if parts.is_empty() {
            "0".to_owned()
        } else {
            parts.join(", ")
        }
    }

    fn token_counts(&self) -> String {
        let u = &self.usage;
        let parts: Vec<String> = [
            (u.input, "↑"),
            (u.output, "↓"),
            (u.cache_read, "R"),
            (u.cache_write, "W"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, sign)| format!("{sign}{}", format_tokens(*n)))
        .collect();
        if parts.is_empty() {
            "0".to_owned()
        } else {
            parts.join(" ")
        }
    }
}
