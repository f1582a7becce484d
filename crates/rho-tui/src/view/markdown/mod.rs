//! Assistant text as Markdown: headings, nested lists, highlighted code blocks, inline code,
//! emphasis, links (text and URL), block quotes, rules and tables, wrapped to the pane's width.
//!
//! A streamed reply is a partial document every frame; CommonMark already reads one sensibly (an
//! open fence runs to the end), and an open fence is drawn without its closing line, so the reader
//! sees the block is still coming. Finished replies are cached per width ([`render_cached`]), or
//! laid out with their code plain until it is drawn ([`document_cached`], see
//! [`crate::view::lazy_code`]).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

use pulldown_cmark::{Options, Parser};
use ratatui::text::Line;

mod writer;

use crate::view::lazy_code::PendingCode;

use writer::Writer;

/// Finished documents kept before the cache starts over.
const CACHE_LIMIT: usize = 128;

/// A finished document's source (to rule out hash collisions) and its layout.
type Laid = (String, Rc<Document>);

/// A finished document laid out: its rows, with code plain until [`crate::view::lazy_code::fill`]
/// highlights the rows on screen.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// The rows.
    pub lines: Rc<Vec<Line<'static>>>,
    /// The code lines among them still plain, in row order.
    pub code: Vec<PendingCode>,
}

thread_local! {
    static CACHE: RefCell<HashMap<(u64, usize, bool), Laid>> = RefCell::new(HashMap::new());
    static RENDERS: Cell<usize> = const { Cell::new(0) };
}

/// Documents this thread has parsed and laid out so far: the work rendering did, for tests.
pub fn documents_rendered() -> usize {
    RENDERS.with(Cell::get)
}

/// [`render`], remembered for a text that no longer changes (a finished reply).
pub fn render_cached(text: &str, width: usize) -> Rc<Vec<Line<'static>>> {
    Rc::clone(&cached(text, width, false).lines)
}

/// [`render_cached`] with the code left plain, to be highlighted where it is seen.
pub fn document_cached(text: &str, width: usize) -> Rc<Document> {
    cached(text, width, true)
}

fn cached(text: &str, width: usize, lazy: bool) -> Rc<Document> {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    let key = (hasher.finish(), width, lazy);
    CACHE.with(|cache| {
        if let Some((source, document)) = cache.borrow().get(&key)
            && source == text
        {
            return Rc::clone(document);
        }
        let document = Rc::new(if lazy {
            render_lazy(text, width)
        } else {
            Document {
                lines: Rc::new(render(text, width)),
                code: Vec::new(),
            }
        });
        let mut cache = cache.borrow_mut();
        if cache.len() >= CACHE_LIMIT {
            cache.clear();
        }
        cache.insert(key, (text.to_owned(), Rc::clone(&document)));
        document
    })
}

/// `text` as Markdown at `width` columns.
pub fn render(text: &str, width: usize) -> Vec<Line<'static>> {
    RENDERS.with(|r| r.set(r.get() + 1));
    let mut writer = Writer::new(width);
    for (event, range) in Parser::new_ext(text, options()).into_offset_iter() {
        writer.event(event, &text[range]);
    }
    writer.finish()
}

fn render_lazy(text: &str, width: usize) -> Document {
    RENDERS.with(|r| r.set(r.get() + 1));
    let mut writer = Writer::lazy(width);
    for (event, range) in Parser::new_ext(text, options()).into_offset_iter() {
        writer.event(event, &text[range]);
    }
    let (lines, code) = writer.finish_lazy();
    Document {
        lines: Rc::new(lines),
        code,
    }
}

fn options() -> Options {
    Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS
}
