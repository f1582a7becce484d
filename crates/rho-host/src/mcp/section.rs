//! The system prompt's `mcp_servers` section (Pi 1.6): the servers whose tools are not declared
//! to the model — reached through `tool_search` (or, in Pi, codemode) — each with the first line
//! of its description or instructions, within 4096 characters in all.

use icu_collator::Collator;
use icu_collator::options::CollatorOptions;
use rho_mcp::Exposure;
use rho_mcp::exposure::configured_exposures;
use rho_mcp::naming::{namespace, server_summary};

use super::McpHost;

/// The most characters of one server's summary.
const MAX_SERVER_DESCRIPTION_CHARS: usize = 250;

/// The most characters of the section.
const MAX_SECTION_CHARS: usize = 4096;

/// `<mcp_servers>\n…\n</mcp_servers>`, or `None` when no server is listed.
pub(super) fn render(host: &McpHost) -> Option<String> {
    let collator = Collator::try_new(Default::default(), CollatorOptions::default()).ok();
    let mut listed: Vec<_> = host
        .servers
        .iter()
        .filter(|s| s.entry().config.enabled())
        .filter(|s| {
            configured_exposures(&s.entry().config)
                .iter()
                .any(|e| matches!(e, Exposure::Codemode | Exposure::Deferred))
        })
        .collect();
    if listed.is_empty() {
        return None;
    }
    listed.sort_by(|a, b| match &collator {
        Some(collator) => collator.compare(a.name(), b.name()),
        None => a.name().cmp(b.name()),
    });
    // rho has no codemode yet: every listed server is reached with tool_search.
    let intro = "MCP servers whose tools are not declared to you. Load the tools of `tool_search` servers with `tool_search`.";
    let heads: Vec<String> = listed
        .iter()
        .map(|s| format!("- {} (tool_search)", namespace(s.name())))
        .collect();
    let omitted = |count: usize| -> Vec<String> {
        if count == 0 {
            return Vec::new();
        }
        let plural = if count == 1 { "" } else { "s" };
        vec![format!(
            "- … {count} more server{plural}; find their tools with tool_search"
        )]
    };
    let size = |kept: usize| -> usize {
        let mut lines = vec![intro.to_owned()];
        lines.extend(heads[..kept].iter().cloned());
        lines.extend(omitted(listed.len() - kept));
        utf16_len(&lines.join("\n"))
    };
    let mut kept = listed.len();
    while kept > 0 && size(kept) > MAX_SECTION_CHARS {
        kept -= 1;
    }
    let per_server = MAX_SECTION_CHARS
        .saturating_sub(size(kept))
        .checked_div(kept)
        .map_or(0, |room| {
            room.saturating_sub(2).min(MAX_SERVER_DESCRIPTION_CHARS)
        });
    let mut lines = vec![intro.to_owned()];
    for (server, head) in listed.iter().zip(&heads).take(kept) {
        let instructions = server.snapshot().instructions;
        let summary = if per_server > 0 {
            truncate(
                &server_summary(server.entry().config.description(), instructions.as_deref()),
                per_server,
            )
        } else {
            String::new()
        };
        lines.push(if summary.is_empty() {
            head.clone()
        } else {
            format!("{head}: {summary}")
        });
    }
    lines.extend(omitted(listed.len() - kept));
    Some(format!(
        "<mcp_servers>\n{}\n</mcp_servers>",
        lines.join("\n")
    ))
}

fn utf16_len(text: &str) -> usize {
    text.encode_utf16().count()
}

/// At most `max` UTF-16 units, cut with `…`.
fn truncate(text: &str, max: usize) -> String {
    if utf16_len(text) <= max {
        return text.to_owned();
    }
    if max <= 1 {
        return String::new();
    }
    let mut kept = String::new();
    let mut units = 0;
    for c in text.chars() {
        if units + c.len_utf16() > max - 1 {
            break;
        }
        units += c.len_utf16();
        kept.push(c);
    }
    format!("{}…", kept.trim_end())
}
