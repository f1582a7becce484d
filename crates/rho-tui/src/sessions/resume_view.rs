//! The `/resume` picker drawn as Pi's session selector: the title with the scope, name filter
//! and sort at the right, two lines of key hints (or the delete confirmation, or a status line
//! in their place), then the search and the sessions. The rename input replaces it all.

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::SessionPicker;
use super::widgets::bold;
use crate::view::list::{self, dim};

/// Pi's delete confirmation, in place of the hints.
pub const CONFIRM_DELETE: &str = "Delete session? enter confirm · escape/ctrl+c cancel";

fn accent() -> Style {
    Style::default().fg(Color::Cyan)
}

fn error() -> Style {
    Style::default().fg(Color::Red)
}

/// The lines of `picker` in `width` columns and `height` rows.
pub(super) fn lines(picker: &SessionPicker, width: usize, height: usize) -> Vec<Line<'static>> {
    if let Some(input) = picker.rename_input() {
        return rename_lines(input);
    }
    let mut out = vec![header(picker, width)];
    out.extend(hints(picker));
    // The header, the two hint lines, the search line and the position line take five rows.
    let rows = height.saturating_sub(5);
    let mut list = crate::picker::view::lines(picker.picker(), width, rows);
    if picker.confirming_delete().is_some() {
        // The confirmation is about the highlighted row: Pi draws it in red.
        let inner = picker.picker();
        let window = list::window(inner.selected_row(), inner.visible().len(), rows);
        let at = 1 + inner.selected_row().saturating_sub(window.start);
        if let Some(line) = list.get_mut(at) {
            // The marker keeps the accent colour; the text and details turn red.
            for span in line.spans.iter_mut().skip(1) {
                span.style = span.style.patch(error());
            }
        }
    }
    out.extend(list);
    out
}

/// `Resume Session (Current Folder)` at the left; `◉ Current Folder | ○ All  Name: All  Sort:
/// Threaded` at the right, without the scope when that does not fit.
fn header(picker: &SessionPicker, width: usize) -> Line<'static> {
    let title = if picker.all() {
        "Resume Session (All)"
    } else {
        "Resume Session (Current Folder)"
    };
    let scope = if picker.all() {
        vec![
            Span::styled("○ Current Folder | ", dim()),
            Span::styled("◉ All", accent()),
        ]
    } else {
        vec![
            Span::styled("◉ Current Folder", accent()),
            Span::styled(" | ○ All", dim()),
        ]
    };
    let modes = vec![
        Span::styled("  Name: ", dim()),
        Span::styled(picker.name_filter().label(), accent()),
        Span::styled("  Sort: ", dim()),
        Span::styled(picker.sort().label(), accent()),
    ];
    let spans_width = |spans: &[Span]| spans.iter().map(|s| s.content.width()).sum::<usize>();
    let mut right = scope;
    right.extend(modes.iter().cloned());
    if title.width() + 1 + spans_width(&right) > width {
        right = modes;
        // Without the scope the modes start the right side: no leading gap.
        if let Some(first) = right.first_mut() {
            *first = Span::styled("Name: ", dim());
        }
    }
    let gap = width
        .saturating_sub(title.width() + spans_width(&right))
        .max(1);
    let mut spans = vec![Span::styled(title, bold()), Span::raw(" ".repeat(gap))];
    spans.extend(right);
    Line::from(spans)
}

/// Pi's two hint lines; the delete confirmation or a status message takes the first.
fn hints(picker: &SessionPicker) -> [Line<'static>; 2] {
    if picker.confirming_delete().is_some() {
        return [
            Line::from(Span::styled(CONFIRM_DELETE, error())),
            Line::default(),
        ];
    }
    if let Some(status) = picker.status() {
        let style = if status.error { error() } else { accent() };
        return [
            Line::from(Span::styled(status.text.clone(), style)),
            Line::default(),
        ];
    }
    let path = if picker.shows_path() {
        "path (on)"
    } else {
        "path (off)"
    };
    let keys = [
        ("ctrl+s", "sort"),
        ("ctrl+n", "named"),
        ("ctrl+d", "delete"),
        ("ctrl+p", path),
        ("ctrl+r", "rename"),
    ];
    let mut second = Vec::new();
    for (i, (key, what)) in keys.iter().enumerate() {
        if i > 0 {
            second.push(Span::styled(" · ", dim()));
        }
        second.push(Span::styled(format!("{key} {what}"), dim()));
    }
    [
        Line::from(Span::styled("tab scope", dim())),
        Line::from(second),
    ]
}

/// Pi's "Rename Session" panel: the title, the input with its cursor, the keys.
fn rename_lines(input: &super::RenameInput) -> Vec<Line<'static>> {
    vec![
        Line::from(Span::styled(" Rename Session", bold())),
        Line::default(),
        super::widgets::input_line("> ", input.text(), input.cursor()),
        Line::default(),
        Line::from(Span::styled(
            " enter to save · escape/ctrl+c to cancel",
            dim(),
        )),
    ]
}
