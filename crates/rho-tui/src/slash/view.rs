//! The command popup (above the editor, like the `@` list), the text panel and the model
//! picker.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::{Panel, SlashPopup, SlashRegistry};
use crate::app::App;
use crate::view::list::{self, dim};

/// Most commands listed at once.
pub const MAX_ROWS: usize = 10;

/// The popup's lines at `width` columns: `/name` and the description, the highlighted row
/// marked, scrolled to keep it in view.
pub fn popup_lines(
    popup: &SlashPopup,
    registry: &SlashRegistry,
    width: usize,
) -> Vec<Line<'static>> {
    if popup.items.is_empty() {
        return vec![Line::from(Span::styled("No matching commands", dim()))];
    }
    let commands: Vec<_> = popup
        .items
        .iter()
        .filter_map(|&i| registry.commands().get(i))
        .map(|c| (format!("/{}", c.name), c.description.as_str()))
        .collect();
    let name_width = list::label_width(commands.iter().map(|(name, _)| name.as_str()), width);
    list::window(popup.selected, commands.len(), MAX_ROWS)
        .filter_map(|row| {
            let (name, description) = commands.get(row)?;
            Some(list::columns_row(
                row == popup.selected,
                name,
                name_width,
                description,
                width,
            ))
        })
        .collect()
}

/// Draws what the commands have on screen: the popup over the conversation's bottom rows, a
/// panel or the model picker over the conversation and editor.
pub fn render(frame: &mut Frame, conversation: Rect, editor: Rect, app: &App) {
    if let Some(popup) = app.slash_popup() {
        let lines = popup_lines(
            popup,
            &app.commands().registry,
            usize::from(conversation.width),
        );
        list::render_at_bottom(frame, conversation, lines);
    }
    let whole = conversation.union(editor);
    if let Some(panel) = app.panel() {
        render_panel(frame, whole, panel);
    }
    if let Some(open) = app.model_picker() {
        crate::picker::view::render(frame, whole, &open.picker);
    }
}

fn render_panel(frame: &mut Frame, area: Rect, panel: &Panel) {
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
    lines.push(Line::from(Span::styled("Press any key to close", dim())));
    list::render_box_at_bottom(frame, area, &panel.title, lines);
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
