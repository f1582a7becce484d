//! The sessions overlays, drawn over the conversation and the editor: a title, the search line
//! where there is one, and the rows with the highlighted one marked `›`, scrolled to keep it
//! visible.

use super::widgets::{bold, input_line};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use rho_host::tools::truncate::format_size;

use super::{LabelInput, SessionRow, SessionsOverlay, TreeView};
use crate::picker::Picker;
use crate::view::list::{self, dim};

/// Renders `overlay` into `area`.
pub fn render(frame: &mut Frame, area: Rect, overlay: &SessionsOverlay) {
    let width = usize::from(area.width);
    let rows = usize::from(area.height.saturating_sub(2));
    let lines = match overlay {
        SessionsOverlay::Resume(picker) => super::resume_view::lines(picker, width, rows),
        SessionsOverlay::Fork(picker) => {
            let header = Line::from(Span::styled(picker.picker().title().to_owned(), bold()));
            picker_lines(header, picker.picker(), width, rows)
        }
        SessionsOverlay::Tree(tree) => tree_lines(tree, width, rows),
    };
    let block = Block::default()
        .borders(Borders::TOP | Borders::BOTTOM)
        .border_style(Style::default().fg(Color::Cyan));
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// `header`, then the picker's search line and rows in what is left of `height`.
fn picker_lines(
    header: Line<'static>,
    picker: &Picker,
    width: usize,
    height: usize,
) -> Vec<Line<'static>> {
    // The header, the search line and the position line take three rows.
    let rows = height.saturating_sub(3);
    let mut out = vec![header];
    out.extend(crate::picker::view::lines(picker, width, rows));
    out
}

/// `text` on one line: a multi-line message's lines joined by spaces.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `3 msgs · 1.2KB · 2026-12-03 04:40`, after the directory when every directory is listed and
/// the file's path (`~` for the home directory, as Pi shortens it) when asked for.
pub(crate) fn session_details(session: &SessionRow, with_cwd: bool, with_path: bool) -> String {
    let mut parts = Vec::new();
    if with_path {
        parts.push(shorten_home(&session.path));
    }
    if with_cwd {
        parts.push(session.cwd.clone());
    }
    parts.push(format!("{} msgs", session.message_count));
    parts.push(format_size(
        usize::try_from(session.size).unwrap_or(usize::MAX),
    ));
    parts.push(format_date(session.modified));
    parts.join(" · ")
}

/// `path` with the home directory written `~`.
fn shorten_home(path: &Path) -> String {
    let shown = path.display().to_string();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match home
        .as_deref()
        .and_then(|home| path.strip_prefix(home).ok())
    {
        Some(rest) if !rest.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => shown,
    }
}

/// `YYYY-MM-DD HH:MM` in UTC (a time before 1970 as 1970's first minute).
pub fn format_date(time: SystemTime) -> String {
    let seconds = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    chrono::DateTime::from_timestamp(seconds, 0)
        .unwrap_or_default()
        .format("%Y-%m-%d %H:%M")
        .to_string()
}

fn tree_lines(tree: &TreeView, width: usize, height: usize) -> Vec<Line<'static>> {
    if let Some(answer) = tree.asking {
        let mut out = vec![Line::from(Span::styled("Summarize branch?", bold()))];
        for (i, choice) in super::tree::SUMMARY_CHOICES.iter().enumerate() {
            out.push(list::row(i == answer, choice, "", width));
        }
        return out;
    }
    let mut out = vec![
        Line::from(vec![
            Span::styled(format!("Session Tree{}", tree.filter().tag()), bold()),
            Span::styled("  ↑/↓ move · Enter select · Esc cancel", dim()),
        ]),
        Line::from(Span::styled(
            "  Shift+L label · ^D ^T ^U ^L ^A filter · ^O/⇧^O cycle",
            dim(),
        )),
    ];
    let input = tree.label_input().map(label_lines).unwrap_or_default();
    if tree.shown_len() == 0 {
        let empty = if tree.is_empty() {
            "No entries yet"
        } else {
            "No entries found"
        };
        out.push(Line::from(Span::styled(format!("  {empty}"), dim())));
    }
    let active = tree.active();
    let shown: Vec<_> = tree.shown().collect();
    let rows = height.saturating_sub(out.len() + input.len());
    for i in list::window(tree.selected(), shown.len(), rows) {
        let (entry, depth) = shown[i];
        let text = match &entry.label {
            Some(label) => format!("[{label}] {}", entry.text),
            None => entry.text.clone(),
        };
        let detail = if active == Some(i) { "← active" } else { "" };
        let text = format!("{}{}", " ".repeat(depth * 2), one_line(&text));
        let selected = i == tree.selected();
        let mut line = list::row(selected, &text, detail, width);
        if !entry.on_branch && !selected {
            line = line.patch_style(dim());
        }
        out.push(line);
    }
    out.extend(input);
    out
}

/// Pi's label input under the tree: the prompt, the text with its cursor, the keys.
fn label_lines(input: &LabelInput) -> Vec<Line<'static>> {
    vec![
        Line::from(Span::styled("  Label (empty to remove):", dim())),
        input_line("  ", input.text(), input.cursor()),
        Line::from(Span::styled("  Enter save · Esc cancel", dim())),
    ]
}
