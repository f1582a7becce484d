//! A compaction or branch summary as Pi draws it: a bold `[compaction]` / `[branch]` label, a
//! blank line, then one collapsed line ("Compacted from 12,345 tokens (ctrl+o to expand)") or,
//! expanded, the summary as Markdown under a bold heading.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::markdown;
use crate::transcript::{SummaryEntry, SummaryKind};

/// Pi's `customMessageLabel` (#9575cd) in the sixteen colours every theme recolours.
const LABEL: Style = Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD);
const DIM: Style = Style::new().fg(Color::DarkGray);

/// The block's rows at `width` columns; `expanded` shows the summary itself (Ctrl+O).
pub fn lines(entry: &SummaryEntry, expanded: bool, width: usize) -> Vec<Line<'static>> {
    let (label, heading, collapsed) = match entry.kind {
        SummaryKind::Compaction { tokens_before } => {
            let tokens = thousands(tokens_before);
            (
                "[compaction]",
                format!("Compacted from {tokens} tokens"),
                format!("Compacted from {tokens} tokens ("),
            )
        }
        SummaryKind::Branch => (
            "[branch]",
            "Branch Summary".to_owned(),
            "Branch summary (".to_owned(),
        ),
    };
    let mut out = vec![Line::from(Span::styled(label, LABEL)), Line::default()];
    if expanded {
        let text = format!("**{heading}**\n\n{}", entry.summary.trim());
        // Drawn only while expanded, and small: no cache needed.
        out.extend(markdown::render(&text, width));
    } else {
        out.push(Line::from(vec![
            Span::raw(collapsed),
            Span::styled("ctrl+o", DIM),
            Span::raw(" to expand)"),
        ]));
    }
    out
}

/// `n` with a comma between each group of three digits, as `toLocaleString` writes it in
/// Pi's (English) locale.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}
