//! The Markdown writer: parser events in, wrapped and styled rows out. Containers (quotes, lists,
//! items) become row prefixes; inline text gathers until its block ends, then wraps as one.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Tag, TagEnd};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::view::lazy_code::PendingCode;
use crate::view::table::Table;
use crate::view::text::{Break, wrap_spans};

mod code;

const DIM: Style = Style::new().fg(Color::DarkGray);
const CODE: Style = Style::new().fg(Color::Yellow);
const LINK: Style = Style::new()
    .fg(Color::Blue)
    .add_modifier(Modifier::UNDERLINED);
const QUOTE: Style = Style::new().fg(Color::Gray).add_modifier(Modifier::ITALIC);

/// A block that indents what it holds.
enum Container {
    Quote,
    /// A list; the next item's number for an ordered one.
    List(Option<u64>),
    /// A list item; its marker is shown on its first row only.
    Item {
        marker: String,
        shown: bool,
    },
}

/// The rows written so far and the open blocks.
#[derive(Default)]
pub(super) struct Writer {
    width: usize,
    out: Vec<Line<'static>>,
    /// The paragraph, heading or item text being gathered.
    inline: Vec<Span<'static>>,
    styles: Vec<Style>,
    containers: Vec<Container>,
    /// Where each open link's text starts in `inline`, and its URL.
    links: Vec<(usize, String)>,
    /// The open code block: its language and text so far.
    code: Option<(String, String)>,
    table: Option<Table>,
    /// A blank line is owed before the next block.
    gap: bool,
    /// When laying out lazily: the code lines written plain, to highlight once they are seen.
    pending: Option<Vec<PendingCode>>,
}

impl Writer {
    /// A writer for rows of `width` columns.
    pub(super) fn new(width: usize) -> Writer {
        Writer {
            width: width.max(1),
            ..Writer::default()
        }
    }

    /// A writer that leaves code blocks plain and lists their lines (see [`Writer::finish_lazy`]).
    pub(super) fn lazy(width: usize) -> Writer {
        Writer {
            pending: Some(Vec::new()),
            ..Writer::new(width)
        }
    }

    /// The rows, once every event is in.
    pub(super) fn finish(mut self) -> Vec<Line<'static>> {
        self.flush();
        self.out
    }

    /// The rows and the code lines left plain in them, in row order.
    pub(super) fn finish_lazy(mut self) -> (Vec<Line<'static>>, Vec<PendingCode>) {
        self.flush();
        (self.out, self.pending.unwrap_or_default())
    }

    fn style(&self) -> Style {
        self.styles
            .iter()
            .fold(Style::default(), |a, s| a.patch(*s))
    }

    fn push_style(&mut self, style: Style) {
        self.styles.push(style);
    }

    fn text(&mut self, text: &str) {
        self.span(Span::styled(text.to_owned(), self.style()));
    }

    fn span(&mut self, span: Span<'static>) {
        if let Some(table) = &mut self.table {
            table.push(span);
        } else {
            self.inline.push(span);
        }
    }

    /// Takes one parser event; `source` is the Markdown it came from.
    pub(super) fn event(&mut self, event: Event, source: &str) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag, source),
            Event::Text(text) => match &mut self.code {
                Some((_, code)) => code.push_str(&text),
                None => self.text(&text),
            },
            Event::Code(code) => {
                let style = self.style().patch(CODE);
                self.span(Span::styled(code.to_string(), style));
            }
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => self.flush(),
            Event::Rule => {
                self.block();
                let room = self.width.saturating_sub(self.prefix(false).1).min(80);
                let (first, _) = self.prefixes();
                let mut line = first;
                line.push(Span::styled("─".repeat(room), DIM));
                self.out.push(Line::from(line));
                self.gap = true;
            }
            Event::TaskListMarker(done) => self.text(if done { "[x] " } else { "[ ] " }),
            Event::Html(html) | Event::InlineHtml(html) => {
                self.text(html.trim_end_matches('\n'));
                if html.ends_with('\n') {
                    self.flush();
                }
            }
            Event::FootnoteReference(name) => self.text(&format!("[^{name}]")),
            Event::InlineMath(math) | Event::DisplayMath(math) => self.text(&math),
        }
    }

    fn start(&mut self, tag: Tag) {
        match tag {
            Tag::Paragraph => self.block(),
            Tag::Heading { level, .. } => {
                self.block();
                let style = match level {
                    HeadingLevel::H1 => Style::new()
                        .fg(Color::Cyan)
                        .add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
                    HeadingLevel::H2 => Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
                    _ => Style::new().add_modifier(Modifier::BOLD),
                };
                self.push_style(style);
                if level > HeadingLevel::H2 {
                    self.text(&format!("{} ", "#".repeat(level as usize)));
                }
            }
            Tag::BlockQuote(_) => {
                self.block();
                self.containers.push(Container::Quote);
                self.push_style(QUOTE);
            }
            Tag::CodeBlock(kind) => {
                self.block();
                let language = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split_whitespace().next().unwrap_or("").to_owned()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((language, String::new()));
            }
            Tag::List(first) => {
                // A nested list starts under its item's text.
                self.flush();
                if !matches!(self.containers.last(), Some(Container::Item { .. })) {
                    self.block();
                }
                self.containers.push(Container::List(first));
            }
            Tag::Item => {
                self.flush();
                self.gap = false;
                let marker = match self.containers.last_mut() {
                    Some(Container::List(Some(n))) => {
                        *n += 1;
                        format!("{}. ", *n - 1)
                    }
                    _ => "- ".to_owned(),
                };
                self.containers.push(Container::Item {
                    marker,
                    shown: false,
                });
            }
            Tag::Emphasis => self.push_style(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self.push_style(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                self.links.push((self.inline.len(), dest_url.to_string()));
                self.push_style(LINK);
            }
            Tag::Table(_) => {
                self.block();
                self.table = Some(Table::default());
            }
            Tag::TableRow | Tag::TableHead => {
                if let Some(table) = &mut self.table {
                    table.row();
                }
            }
            Tag::TableCell => {
                if let Some(table) = &mut self.table {
                    table.cell();
                }
            }
            _ => self.push_style(Style::default()),
        }
    }

    fn end(&mut self, tag: TagEnd, source: &str) {
        match tag {
            TagEnd::Paragraph => {
                self.flush();
                self.gap = true;
            }
            TagEnd::Heading(_) => {
                self.flush();
                self.styles.pop();
                self.gap = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.styles.pop();
                self.containers.pop();
                self.gap = true;
            }
            TagEnd::CodeBlock => {
                // Indented blocks have no fence; a fenced one is closed once its last line is one.
                let fenced = ["```", "~~~"].iter().any(|f| source.starts_with(f));
                let closed = !fenced
                    || source
                        .trim_end()
                        .rsplit_once('\n')
                        .is_some_and(|(_, last)| {
                            ["```", "~~~"]
                                .iter()
                                .any(|f| last.trim_start().starts_with(f))
                        });
                self.code_block(closed);
                self.gap = true;
            }
            TagEnd::List(_) => {
                self.flush();
                self.containers.pop();
                let nested = matches!(self.containers.last(), Some(Container::Item { .. }));
                self.gap = !nested;
            }
            TagEnd::Item => {
                self.flush();
                self.containers.pop();
                self.gap = false;
            }
            TagEnd::Link | TagEnd::Image => {
                self.styles.pop();
                if let Some((start, url)) = self.links.pop() {
                    let label: String = self.inline[start.min(self.inline.len())..]
                        .iter()
                        .map(|s| s.content.as_ref())
                        .collect();
                    if label != url && !url.is_empty() {
                        self.inline.push(Span::styled(format!(" ({url})"), DIM));
                    }
                }
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    let (first, rest) = self.prefixes();
                    for row in table.lines() {
                        self.out.extend(wrap_spans(
                            &row,
                            self.width,
                            &first,
                            &rest,
                            Break::Columns,
                        ));
                    }
                }
                self.gap = true;
            }
            TagEnd::TableHead | TagEnd::TableRow | TagEnd::TableCell => {}
            _ => {
                self.styles.pop();
            }
        }
    }

    /// Pays a blank line owed before a new block.
    fn block(&mut self) {
        self.flush();
        if self.gap && !self.out.is_empty() {
            let (rest, _) = self.prefix(false);
            let line: Vec<Span<'static>> = rest
                .into_iter()
                .map(|s| Span::styled(s.content.trim_end().to_owned(), s.style))
                .collect();
            self.out.push(Line::from(line));
        }
        self.gap = false;
    }

    /// The prefix of a row (quote bars, item markers or their indent) and its width. The first
    /// row of an item shows its marker; `first` marks those markers as shown.
    fn prefix(&mut self, first: bool) -> (Vec<Span<'static>>, usize) {
        let mut spans = Vec::new();
        for container in &mut self.containers {
            match container {
                Container::Quote => spans.push(Span::styled("│ ", DIM)),
                Container::Item { marker, shown } => {
                    if first && !*shown {
                        spans.push(Span::styled(marker.clone(), Style::new().fg(Color::Cyan)));
                        *shown = true;
                    } else {
                        spans.push(Span::raw(" ".repeat(marker.width())));
                    }
                }
                Container::List(_) => {}
            }
        }
        let width = spans.iter().map(|s| s.content.width()).sum();
        (spans, width)
    }

    fn prefixes(&mut self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let first = self.prefix(true).0;
        let rest = self.prefix(false).0;
        (first, rest)
    }

    /// Writes the gathered inline text as wrapped rows.
    fn flush(&mut self) {
        if self.inline.is_empty() {
            return;
        }
        let spans = std::mem::take(&mut self.inline);
        let (first, rest) = self.prefixes();
        self.out
            .extend(wrap_spans(&spans, self.width, &first, &rest, Break::Words));
    }
}
