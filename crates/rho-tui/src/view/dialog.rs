//! A host's question, drawn where the editor is (as the approval dialog): a menu with its
//! details and the highlighted row marked, yes or no, or a line of text being typed.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use super::text::wrap;
use rho_host::ui::Menu;

use crate::dialogs::{DialogKind, OpenDialog};

/// Menu rows shown at once; the window follows the highlight.
const VISIBLE_ROWS: usize = 12;

/// The dialog's lines at `width` columns (inside its rules).
pub fn lines(dialog: &OpenDialog, width: usize) -> Vec<Line<'static>> {
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let dim = Style::default().fg(Color::DarkGray);
    let highlight = Style::default()
        .fg(Color::Cyan)
        .add_modifier(Modifier::BOLD);
    let wrapped = |text: &str, style: Style| -> Vec<Line<'static>> {
        wrap(text, width)
            .into_iter()
            .map(|line| Line::from(Span::styled(line, style)))
            .collect()
    };
    let mut out = Vec::new();
    match &dialog.kind {
        DialogKind::Menu(menu) => {
            out.extend(wrapped(&menu.title, bold.fg(Color::Yellow)));
            for detail in &menu.details {
                out.extend(wrapped(detail, dim));
            }
            if let Some(error) = &menu.error {
                out.extend(wrapped(error, Style::default().fg(Color::Red)));
            }
            out.extend(menu_rows(menu, dialog.selected, width, highlight, dim));
            out.push(Line::from(Span::styled(
                "↑↓ move · Enter select · Esc back",
                dim,
            )));
        }
        DialogKind::Confirm { title, message } => {
            out.extend(wrapped(title, bold.fg(Color::Yellow)));
            out.extend(wrapped(message, Style::default()));
            let choice = |label: &str, on: bool| {
                if on {
                    Span::styled(format!("› {label}"), highlight)
                } else {
                    Span::raw(format!("  {label}"))
                }
            };
            out.push(Line::from(vec![
                choice("Yes (y)", dialog.selected == 0),
                Span::raw("   "),
                choice("No (n)", dialog.selected != 0),
            ]));
        }
        DialogKind::Input { title, placeholder } => {
            out.extend(wrapped(title, bold.fg(Color::Yellow)));
            let typed = dialog.text.text();
            let line = if typed.is_empty() {
                Line::from(vec![
                    Span::styled("› ", highlight),
                    Span::styled(placeholder.clone(), dim),
                ])
            } else {
                Line::from(vec![
                    Span::styled("› ", highlight),
                    Span::raw(typed.to_owned()),
                ])
            };
            out.push(line);
            out.push(Line::from(Span::styled("Enter confirm · Esc cancel", dim)));
        }
    }
    out
}

/// The rows of `menu` in the window around `selected`, each `label  description`.
fn menu_rows(
    menu: &Menu,
    selected: usize,
    width: usize,
    highlight: Style,
    dim: Style,
) -> Vec<Line<'static>> {
    if menu.items.is_empty() {
        return vec![Line::from(Span::styled(menu.empty.clone(), dim))];
    }
    let start = selected
        .saturating_sub(VISIBLE_ROWS / 2)
        .min(menu.items.len().saturating_sub(VISIBLE_ROWS));
    let label_width = menu
        .items
        .iter()
        .map(|item| item.label.width())
        .max()
        .unwrap_or(0)
        .min(width / 2);
    menu.items
        .iter()
        .enumerate()
        .skip(start)
        .take(VISIBLE_ROWS)
        .map(|(index, item)| {
            let on = index == selected;
            let marker = if on { "› " } else { "  " };
            let pad = label_width.saturating_sub(item.label.width());
            let label = format!("{marker}{}{}", item.label, " ".repeat(pad));
            let room = width.saturating_sub(label.width() + 2);
            let description: String = item.description.chars().take(room).collect();
            Line::from(vec![
                Span::styled(label, if on { highlight } else { Style::default() }),
                Span::raw("  "),
                Span::styled(description, dim),
            ])
        })
        .collect()
}

/// Rows the dialog needs at `width` columns, rules included.
pub fn height(dialog: &OpenDialog, width: usize) -> usize {
    lines(dialog, width).len() + 2
}

/// Renders the dialog into `area`.
pub fn render(frame: &mut Frame, area: Rect, dialog: &OpenDialog) {
    super::approval::render_question(frame, area, |width| lines(dialog, width));
}
