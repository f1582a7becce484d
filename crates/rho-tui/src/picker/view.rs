//! A picker drawn as a bordered box or inside an overlay: the search line, then the rows that
//! match, the highlighted one marked, the details in a column or at the right edge.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{DetailLayout, Picker};
use crate::view::list::{self, dim};

/// The lines of the list: the search line, then at most `rows` items around the highlight, and
/// the highlight's position when not all of them fit.
pub fn lines(picker: &Picker, width: usize, rows: usize) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(vec![
        Span::styled("Search: ", dim()),
        Span::raw(picker.query().to_owned()),
        Span::styled("█", dim()),
    ])];
    let visible = picker.visible();
    if visible.is_empty() {
        lines.push(Line::from(Span::styled(
            format!("  {}", picker.empty_text()),
            dim(),
        )));
        return lines;
    }
    let items = picker.items();
    let label_width = list::label_width(
        visible
            .iter()
            .filter_map(|&i| items.get(i))
            .map(|item| item.label.as_str()),
        width,
    );
    for position in list::window(picker.selected_row(), visible.len(), rows) {
        let Some(item) = visible.get(position).and_then(|&i| items.get(i)) else {
            continue;
        };
        let highlighted = position == picker.selected_row();
        let details = item.details.join("  ");
        lines.push(match picker.layout() {
            DetailLayout::Column => {
                list::columns_row(highlighted, &item.label, label_width, &details, width)
            }
            DetailLayout::Right => list::row(highlighted, &item.label, &details, width),
        });
    }
    if visible.len() > rows.max(1) {
        lines.push(Line::from(Span::styled(
            format!("  ({}/{})", picker.selected_row() + 1, visible.len()),
            dim(),
        )));
    }
    lines
}

/// Renders `picker` in a box over the bottom of `area` (the conversation and editor), as tall as
/// its rows need and at most the whole area.
pub fn render(frame: &mut Frame, area: Rect, picker: &Picker) {
    let inner_width = usize::from(area.width.saturating_sub(2));
    // Borders, the search line and the position line take four rows.
    let rows = usize::from(area.height.saturating_sub(4)).min(12);
    let lines = lines(picker, inner_width, rows);
    list::render_box_at_bottom(frame, area, picker.title(), lines);
}
