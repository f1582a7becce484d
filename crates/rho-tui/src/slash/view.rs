//! The command popup (above the editor, like the `@` list), the text panel and the model
//! picker.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use super::{Commands, Panel, SlashPopup, SlashRegistry};
use crate::view::text::truncate;

/// Most commands listed at once.
pub const MAX_ROWS: usize = 10;

/// The popup's lines at `width` columns: `/name` and the description, the highlighted row
/// marked, scrolled to keep it in view.
pub fn popup_lines(
    popup: &SlashPopup,
    registry: &SlashRegistry,
    width: usize,
) -> Vec<Line<'static>> {
    let dim = Style::default().fg(Color::DarkGray);
    if popup.items.is_empty() {
        return vec![Line::from(Span::styled("No matching commands", dim))];
    }
    let commands: Vec<_> = popup
        .items
        .iter()
        .filter_map(|&i| registry.commands().get(i))
        .collect();
    let name_width = commands
        .iter()
        .map(|c| c.name.width() + 1)
        .max()
        .unwrap_or(0)
        .min(width / 2);
    let first = popup.selected.saturating_sub(MAX_ROWS - 1);
    commands
        .iter()
        .enumerate()
        .skip(first)
        .take(MAX_ROWS)
        .map(|(row, command)| {
            let name = truncate(&format!("/{}", command.name), name_width);
            let pad = name_width.saturating_sub(name.width());
            let room = width.saturating_sub(name_width + 4);
            let description = truncate(&command.description, room);
            if row == popup.selected {
                let style = Style::default()
                    .fg(Color::Cyan)
                    .add_modifier(Modifier::BOLD);
                Line::from(vec![
                    Span::styled(format!("› {name}{}", " ".repeat(pad)), style),
                    Span::styled(format!("  {description}"), Style::default().fg(Color::Cyan)),
                ])
            } else {
                Line::from(vec![
                    Span::raw(format!("  {name}{}", " ".repeat(pad))),
                    Span::styled(format!("  {description}"), dim),
                ])
            }
        })
        .collect()
}

/// Draws what the commands have on screen: the popup over the conversation's bottom rows, a
/// panel or the model picker over the conversation and editor.
pub fn render(frame: &mut Frame, conversation: Rect, editor: Rect, commands: &Commands) {
    if let Some(popup) = &commands.popup {
        let lines = popup_lines(popup, &commands.registry, usize::from(conversation.width));
        let rows = u16::try_from(lines.len())
            .unwrap_or(u16::MAX)
            .min(conversation.height);
        let area = Rect {
            y: conversation.bottom().saturating_sub(rows),
            height: rows,
            ..conversation
        };
        frame.render_widget(Clear, area);
        frame.render_widget(Paragraph::new(lines), area);
    }
    let whole = conversation.union(editor);
    if let Some(panel) = &commands.panel {
        render_panel(frame, whole, panel);
    }
    if let Some(open) = &commands.model_picker {
        crate::picker::view::render(frame, whole, &open.picker);
    }
}

fn render_panel(frame: &mut Frame, area: Rect, panel: &Panel) {
    let dim = Style::default().fg(Color::DarkGray);
    let inner = usize::from(area.width.saturating_sub(2));
    let room = usize::from(area.height.saturating_sub(3));
    let mut lines: Vec<Line<'static>> = panel
        .lines
        .iter()
        .skip(panel.scroll)
        .flat_map(|l| wrap(l, inner))
        .take(room)
        .map(Line::from)
        .collect();
    lines.push(Line::from(Span::styled("Press any key to close", dim)));
    let height = u16::try_from(lines.len() + 2)
        .unwrap_or(u16::MAX)
        .min(area.height);
    let area = Rect {
        y: area.bottom().saturating_sub(height),
        height,
        ..area
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(dim)
        .title(Span::styled(
            format!(" {} ", panel.title),
            Style::default().add_modifier(Modifier::BOLD),
        ));
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// `line` cut into pieces of at most `width` columns (a session file's path is longer than a
/// terminal is wide, and all of it matters).
fn wrap(line: &str, width: usize) -> Vec<String> {
    if width == 0 || line.width() <= width {
        return vec![line.to_owned()];
    }
    let mut pieces = Vec::new();
    let mut piece = String::new();
    let mut used = 0;
    for c in line.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > width && !piece.is_empty() {
            pieces.push(std::mem::take(&mut piece));
            used = 0;
        }
        piece.push(c);
        used += w;
    }
    pieces.push(piece);
    pieces
}
