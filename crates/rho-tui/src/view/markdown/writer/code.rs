//! Code blocks: a fence line, the code highlighted (or left plain to be highlighted once seen,
//! when laying out lazily) and wrapped at the last column, and the closing fence once the
//! source has it.

use std::rc::Rc;

use ratatui::text::{Line, Span};

use super::{DIM, Writer};
use crate::view::highlight::{highlight, plain};
use crate::view::lazy_code::{CodeSource, PendingCode};
use crate::view::text::{Break, wrap_spans};

impl Writer {
    /// Writes the open code block: its fence, its highlighted lines, and the closing fence once
    /// the source has it.
    pub(super) fn code_block(&mut self, closed: bool) {
        let Some((language, code)) = self.code.take() else {
            return;
        };
        let (first, rest) = self.prefixes();
        let fence = |label: String| {
            let mut line = rest.clone();
            line.push(Span::styled(label, DIM));
            Line::from(line)
        };
        let mut head = first.clone();
        head.push(Span::styled(format!("```{language}"), DIM));
        self.out.push(Line::from(head));
        let mut indent = rest.clone();
        indent.push(Span::raw("  "));
        match &mut self.pending {
            // A blank language stays plain either way: nothing to come back for.
            Some(pending) if !language.trim().is_empty() => {
                let lines = plain(&code);
                let block = Rc::new(CodeSource::new(&language, code));
                for (i, line) in lines.iter().enumerate() {
                    let rows =
                        wrap_spans(&line.spans, self.width, &indent, &indent, Break::Columns);
                    pending.push(PendingCode::new(
                        &block,
                        i,
                        self.out.len(),
                        rows.len(),
                        indent.clone(),
                        self.width,
                    ));
                    self.out.extend(rows);
                }
            }
            _ => {
                for line in highlight(&code, &language).iter() {
                    self.out.extend(wrap_spans(
                        &line.spans,
                        self.width,
                        &indent,
                        &indent,
                        Break::Columns,
                    ));
                }
            }
        }
        if closed {
            self.out.push(fence("```".to_owned()));
        }
    }
}
