//! Markdown tables: cells gathered while parsing, laid out in aligned columns.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;
use unicode_width::UnicodeWidthStr;

const RULE: Style = Style::new().fg(Color::DarkGray);

/// A table's rows of cells, the first row being the header.
#[derive(Default)]
pub struct Table {
    rows: Vec<Vec<Vec<Span<'static>>>>,
}

impl Table {
    /// Starts a row (the header counts as one).
    pub fn row(&mut self) {
        self.rows.push(Vec::new());
    }

    /// Starts a cell in the current row.
    pub fn cell(&mut self) {
        if let Some(row) = self.rows.last_mut() {
            row.push(Vec::new());
        }
    }

    /// Adds text to the current cell.
    pub fn push(&mut self, span: Span<'static>) {
        if let Some(cell) = self.rows.last_mut().and_then(|r| r.last_mut()) {
            cell.push(span);
        }
    }

    /// One row of spans per table row, columns padded to their widest cell and a rule under
    /// the header.
    pub fn lines(&self) -> Vec<Vec<Span<'static>>> {
        let width = |cell: &[Span]| cell.iter().map(|s| s.content.width()).sum::<usize>();
        let columns = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        let widths: Vec<usize> = (0..columns)
            .map(|c| {
                self.rows
                    .iter()
                    .filter_map(|r| r.get(c))
                    .map(|cell| width(cell))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = Vec::new();
        for (k, row) in self.rows.iter().enumerate() {
            let mut line = Vec::new();
            for (c, column_width) in widths.iter().enumerate() {
                if c > 0 {
                    line.push(Span::styled(" │ ", RULE));
                }
                let cell = row.get(c).map(Vec::as_slice).unwrap_or(&[]);
                for span in cell {
                    let style = if k == 0 {
                        span.style.add_modifier(Modifier::BOLD)
                    } else {
                        span.style
                    };
                    line.push(Span::styled(span.content.clone(), style));
                }
                let pad = column_width.saturating_sub(width(cell));
                if pad > 0 && c + 1 < widths.len() {
                    line.push(Span::raw(" ".repeat(pad)));
                }
            }
            out.push(line);
            if k == 0 {
                let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                out.push(vec![Span::styled(rule.join("─┼─"), RULE)]);
            }
        }
        out
    }
}
