//! The approval dialog, drawn where the editor is: the exact command (or tool call), the rule
//! that asked, and the three answers with the highlighted one marked.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::text::wrap;
use crate::approval::{ApprovalChoice, ApprovalDialog};

/// The dialog's lines at `width` columns (inside its rules).
pub fn lines(dialog: &ApprovalDialog, width: usize) -> Vec<Line<'static>> {
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let dim = Style::default().fg(Color::DarkGray);
    let (question, prompt) = match dialog.tool {
        Some(_) => ("Allow this tool call?", "› "),
        None => ("Allow this command?", "$ "),
    };
    let mut out = vec![Line::from(Span::styled(question, bold.fg(Color::Yellow)))];
    for line in wrap(&dialog.command, width.saturating_sub(2)) {
        out.push(Line::from(vec![
            Span::styled(prompt, dim),
            Span::styled(line, bold),
        ]));
    }
    out.extend(
        wrap(&format!("Asked by: {}", dialog.why), width)
            .into_iter()
            .map(|l| Line::from(Span::styled(l, dim))),
    );
    let mut choices = Vec::new();
    for (i, choice) in ApprovalChoice::ALL.iter().enumerate() {
        if i > 0 {
            choices.push(Span::raw("   "));
        }
        if i == dialog.selected {
            choices.push(Span::styled(
                format!("› {}", choice.label()),
                Style::default()
                    .fg(Color::Cyan)
                    .add_modifier(Modifier::BOLD),
            ));
        } else {
            choices.push(Span::raw(format!("  {}", choice.label())));
        }
    }
    out.push(Line::from(choices));
    out
}

/// Rows the dialog needs at `width` columns, rules included.
pub fn height(dialog: &ApprovalDialog, width: usize) -> usize {
    lines(dialog, width).len() + 2
}

/// Renders the dialog into `area`.
pub fn render(frame: &mut Frame, area: Rect, dialog: &ApprovalDialog) {
    render_question(frame, area, |width| lines(dialog, width));
}

/// Renders a question where the editor is: the lines `lines_at` makes for the width inside
/// the yellow rules above and below.
pub fn render_question(
    frame: &mut Frame,
    area: Rect,
    lines_at: impl FnOnce(usize) -> Vec<Line<'static>>,
) {
    let block = Block::default()
        .borders(Borders::TOP | Borders::BOTTOM)
        .border_style(Style::default().fg(Color::Yellow));
    let inner = block.inner(area);
    let lines = lines_at(usize::from(inner.width));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
