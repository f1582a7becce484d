//! Syntax highlighting for code blocks and file contents, with syntect.
//!
//! The grammars and theme load on the first code that asks for them, never on the start-up path
//! (the first frame must stay under 20 ms; loading takes tens of milliseconds). Results are cached
//! per thread (the UI draws from one thread), and a cached block that the stream extends is
//! continued from its saved parser state, so a long streamed reply costs each line once, not once
//! per frame.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::rc::Rc;
use std::sync::OnceLock;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::highlighting::{FontStyle, HighlightIterator, HighlightState, Highlighter, Theme};
use syntect::parsing::{ParseState, ScopeStack, SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

/// The style of code no grammar knows.
pub const PLAIN_CODE: Style = Style::new().fg(Color::Gray);

/// Cached blocks kept before the cache starts over (a conversation shows far fewer).
const CACHE_LIMIT: usize = 256;

pub(crate) struct Assets {
    syntaxes: SyntaxSet,
    theme: Theme,
}

static ASSETS: OnceLock<Option<Assets>> = OnceLock::new();

fn assets() -> Option<&'static Assets> {
    ASSETS
        .get_or_init(|| {
            let mut themes = syntect::highlighting::ThemeSet::load_defaults();
            let theme = themes.themes.remove("base16-ocean.dark")?;
            Some(Assets {
                syntaxes: SyntaxSet::load_defaults_newlines(),
                theme,
            })
        })
        .as_ref()
}

/// A block highlighted up to its last complete line, with the parser's state there.
struct Done {
    language: String,
    source: String,
    lines: Rc<Vec<Line<'static>>>,
    parse: ParseState,
    highlight: HighlightState,
}

thread_local! {
    static CACHE: RefCell<HashMap<u64, Done>> = RefCell::new(HashMap::new());
    static WORK: Cell<usize> = const { Cell::new(0) };
}

/// Lines this thread has run through a grammar so far: the work a render did, for tests.
pub fn lines_highlighted() -> usize {
    WORK.with(Cell::get)
}

/// The language named by a path's extension (`src/main.rs` → `rs`), for `read` and `write`.
pub fn language_of_path(path: &str) -> Option<&str> {
    let name = path.rsplit('/').next()?;
    let (stem, extension) = name.rsplit_once('.')?;
    (!stem.is_empty() && !extension.is_empty()).then_some(extension)
}

/// `code` highlighted as `language` (a fence's info word or an extension), one line per source
/// line, tabs as spaces. An empty or unknown language gives plain lines without loading anything
/// more than the grammar list.
pub fn highlight(code: &str, language: &str) -> Rc<Vec<Line<'static>>> {
    let language = normalize(language);
    let Some((assets, syntax)) = grammar(&language) else {
        return Rc::new(plain(code));
    };
    // Only complete lines are cached: the last, unfinished one changes with every delta.
    let complete = code.rfind('\n').map_or(0, |n| n + 1);
    let (head, tail) = code.split_at(complete);
    let key = key(&language, head);
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.get(&key).is_none_or(|d| d.source != head) {
            let done = match longest_prefix(&cache, &language, head) {
                Some(old) => match cache.remove(&old) {
                    Some(done) => extend(assets, done, head),
                    None => start(assets, syntax, &language, head),
                },
                None => start(assets, syntax, &language, head),
            };
            if cache.len() >= CACHE_LIMIT {
                cache.clear();
            }
            cache.insert(key, done);
        }
        let Some(done) = cache.get(&key) else {
            return Rc::new(plain(code));
        };
        if tail.is_empty() {
            return Rc::clone(&done.lines);
        }
        let mut lines = done.lines.as_ref().clone();
        let mut parse = done.parse.clone();
        let mut state = done.highlight.clone();
        lines.push(highlight_line(assets, &mut parse, &mut state, tail));
        Rc::new(lines)
    })
}

/// A fence's info word as the cache and the grammar lookup key it.
pub(crate) fn normalize(language: &str) -> String {
    language.trim().to_ascii_lowercase()
}

/// The grammar for a normalized `language`; `None` (without loading anything) for a blank one.
pub(crate) fn grammar(language: &str) -> Option<(&'static Assets, &'static SyntaxReference)> {
    if language.is_empty() {
        return None;
    }
    assets().and_then(|a| find_syntax(&a.syntaxes, language).map(|s| (a, s)))
}

fn find_syntax<'a>(syntaxes: &'a SyntaxSet, language: &str) -> Option<&'a SyntaxReference> {
    let alias = match language {
        "sh" | "shell" | "zsh" | "console" => "bash",
        "py" | "python3" => "python",
        "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "typescript" => "javascript",
        "yml" => "yaml",
        "rs" => "rust",
        other => other,
    };
    syntaxes
        .find_syntax_by_token(alias)
        .or_else(|| syntaxes.find_syntax_by_extension(language))
}

fn key(language: &str, source: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    language.hash(&mut hasher);
    source.hash(&mut hasher);
    hasher.finish()
}

/// The cached block of `language` that `source` extends the furthest, if any.
fn longest_prefix(cache: &HashMap<u64, Done>, language: &str, source: &str) -> Option<u64> {
    cache
        .iter()
        .filter(|(_, d)| d.language == language && source.starts_with(d.source.as_str()))
        .max_by_key(|(_, d)| d.source.len())
        .map(|(k, _)| *k)
}

fn start(assets: &'static Assets, syntax: &SyntaxReference, language: &str, source: &str) -> Done {
    let (parse, highlight) = fresh(assets, syntax);
    let done = Done {
        language: language.to_owned(),
        source: String::new(),
        lines: Rc::new(Vec::new()),
        parse,
        highlight,
    };
    extend(assets, done, source)
}

/// `done` continued over the lines `source` has beyond it.
fn extend(assets: &'static Assets, mut done: Done, source: &str) -> Done {
    let new = &source[done.source.len()..];
    // The previous frame's copy is gone by now, so this does not copy the lines.
    let lines = Rc::make_mut(&mut done.lines);
    for line in LinesWithEndings::from(new) {
        lines.push(highlight_line(
            assets,
            &mut done.parse,
            &mut done.highlight,
            line,
        ));
    }
    done.source = source.to_owned();
    done
}

/// A parser and highlighter at the start of a file.
pub(crate) fn fresh(assets: &Assets, syntax: &SyntaxReference) -> (ParseState, HighlightState) {
    let highlighter = Highlighter::new(&assets.theme);
    (
        ParseState::new(syntax),
        HighlightState::new(&highlighter, ScopeStack::new()),
    )
}

/// One source line through the grammar, continuing `parse` and `state`.
pub(crate) fn highlight_line(
    assets: &Assets,
    parse: &mut ParseState,
    state: &mut HighlightState,
    line: &str,
) -> Line<'static> {
    WORK.with(|w| w.set(w.get() + 1));
    let Ok(ops) = parse.parse_line(line, &assets.syntaxes) else {
        // A grammar error leaves this line plain; the next lines still try.
        return plain_line(line);
    };
    let highlighter = Highlighter::new(&assets.theme);
    let spans: Vec<Span<'static>> = HighlightIterator::new(state, &ops, line, &highlighter)
        .filter_map(|(style, text)| {
            let text = text.trim_end_matches(['\n', '\r']).replace('\t', "    ");
            (!text.is_empty()).then(|| Span::styled(text, convert(style)))
        })
        .collect();
    Line::from(spans)
}

fn convert(style: syntect::highlighting::Style) -> Style {
    let fg = style.foreground;
    let mut out = Style::new().fg(Color::Rgb(fg.r, fg.g, fg.b));
    if style.font_style.contains(FontStyle::BOLD) {
        out = out.add_modifier(Modifier::BOLD);
    }
    if style.font_style.contains(FontStyle::ITALIC) {
        out = out.add_modifier(Modifier::ITALIC);
    }
    out
}

pub(crate) fn plain_line(line: &str) -> Line<'static> {
    let text = line.trim_end_matches(['\n', '\r']).replace('\t', "    ");
    Line::from(Span::styled(text, PLAIN_CODE))
}

/// Each source line in [`PLAIN_CODE`].
pub fn plain(code: &str) -> Vec<Line<'static>> {
    LinesWithEndings::from(code).map(plain_line).collect()
}
