//! Splits a shell command into the simple commands it runs: on `&&`, `||`, `;`, `|`, `&`,
//! newlines, subshells `( … )`, command substitutions `$( … )` and backticks (also inside
//! double quotes), process substitutions `<( … )`. Quotes and escapes are removed from words;
//! redirections and their targets are dropped. Anything it cannot follow is an error, which
//! the rules treat as "needs approval".

/// Why a command could not be split.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    /// A `'` or `"` without its closing partner.
    #[error("unbalanced quote")]
    UnbalancedQuote,
    /// A `(`, `$(`, `` ` `` or `${` without its closing partner, or a stray `)`.
    #[error("unbalanced parenthesis, brace or backtick")]
    Unbalanced,
    /// Nested deeper than any real command is.
    #[error("nested too deeply")]
    TooDeep,
}

/// Deeper nesting than this is refused rather than recursed into.
const MAX_DEPTH: usize = 64;

/// What ends the list being parsed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    Eof,
    Paren,
    Backtick,
}

/// Splits `input` into simple commands, each a list of words (quotes removed). Empty commands
/// are left out.
pub fn split_command(input: &str) -> Result<Vec<Vec<String>>, SplitError> {
    let mut parser = Parser {
        chars: input.chars().collect(),
        pos: 0,
        out: Vec::new(),
    };
    parser.list(End::Eof, 0)?;
    Ok(parser.out)
}

/// The words of one simple command being collected.
#[derive(Default)]
struct Words {
    words: Vec<String>,
    word: Option<String>,
    /// The next word is a redirection target: dropped.
    redirect_target: bool,
}

impl Words {
    fn push(&mut self, c: char) {
        self.word.get_or_insert_with(String::new).push(c);
    }

    fn push_str(&mut self, s: &str) {
        self.word.get_or_insert_with(String::new).push_str(s);
    }

    fn end_word(&mut self) {
        if let Some(word) = self.word.take() {
            if self.redirect_target {
                self.redirect_target = false;
            } else {
                self.words.push(word);
            }
        }
    }

    fn end_command(&mut self, out: &mut Vec<Vec<String>>) {
        self.end_word();
        self.redirect_target = false;
        let words = std::mem::take(&mut self.words);
        if !words.is_empty() {
            out.push(words);
        }
    }
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    out: Vec<Vec<String>>,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    /// Parses commands until `end`; nested lists add their commands to `out` too.
    fn list(&mut self, end: End, depth: usize) -> Result<(), SplitError> {
        if depth > MAX_DEPTH {
            return Err(SplitError::TooDeep);
        }
        let mut cmd = Words::default();
        loop {
            let Some(c) = self.peek() else {
                if end != End::Eof {
                    return Err(SplitError::Unbalanced);
                }
                cmd.end_command(&mut self.out);
                return Ok(());
            };
            self.pos += 1;
            match c {
                ')' if end == End::Paren => {
                    cmd.end_command(&mut self.out);
                    return Ok(());
                }
                ')' => return Err(SplitError::Unbalanced),
                '`' if end == End::Backtick => {
                    cmd.end_command(&mut self.out);
                    return Ok(());
                }
                '`' => {
                    self.list(End::Backtick, depth + 1)?;
                    cmd.push_str("`…`");
                }
                ' ' | '\t' | '\r' => cmd.end_word(),
                '\n' | ';' | '&' | '|' => cmd.end_command(&mut self.out),
                '(' => {
                    cmd.end_command(&mut self.out);
                    self.list(End::Paren, depth + 1)?;
                }
                '$' if self.peek() == Some('(') => {
                    self.pos += 1;
                    self.list(End::Paren, depth + 1)?;
                    cmd.push_str("$(…)");
                }
                '$' if self.peek() == Some('{') => {
                    let text = self.braced()?;
                    cmd.push_str(&text);
                }
                '\'' => {
                    let text = self.single_quoted()?;
                    cmd.push_str(&text);
                }
                '"' => {
                    let text = self.double_quoted(depth)?;
                    cmd.push_str(&text);
                }
                '\\' => match self.peek() {
                    Some('\n') => self.pos += 1,
                    Some(next) => {
                        self.pos += 1;
                        cmd.push(next);
                    }
                    None => cmd.push('\\'),
                },
                '#' if cmd.word.is_none() => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                '<' | '>' => {
                    // An fd number right before the operator (`2>`) belongs to it.
                    if cmd
                        .word
                        .as_deref()
                        .is_some_and(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit()))
                    {
                        cmd.word = None;
                    }
                    cmd.end_word();
                    while matches!(self.peek(), Some('<' | '>' | '&')) {
                        self.pos += 1;
                    }
                    if self.peek() == Some('(') {
                        self.pos += 1;
                        self.list(End::Paren, depth + 1)?;
                    } else {
                        cmd.redirect_target = true;
                    }
                }
                other => cmd.push(other),
            }
        }
    }

    /// After `'`: the text up to the closing `'`.
    fn single_quoted(&mut self) -> Result<String, SplitError> {
        let mut text = String::new();
        loop {
            let c = self.peek().ok_or(SplitError::UnbalancedQuote)?;
            self.pos += 1;
            if c == '\'' {
                return Ok(text);
            }
            text.push(c);
        }
    }

    /// After `"`: the text up to the closing `"`; substitutions inside are parsed as commands.
    fn double_quoted(&mut self, depth: usize) -> Result<String, SplitError> {
        let mut text = String::new();
        loop {
            let c = self.peek().ok_or(SplitError::UnbalancedQuote)?;
            self.pos += 1;
            match c {
                '"' => return Ok(text),
                '\\' => match self.peek() {
                    Some('\n') => self.pos += 1,
                    Some(next @ ('$' | '`' | '"' | '\\')) => {
                        self.pos += 1;
                        text.push(next);
                    }
                    _ => text.push('\\'),
                },
                '$' if self.peek() == Some('(') => {
                    self.pos += 1;
                    self.list(End::Paren, depth + 1)?;
                    text.push_str("$(…)");
                }
                '$' if self.peek() == Some('{') => text.push_str(&self.braced()?),
                '`' => {
                    self.list(End::Backtick, depth + 1)?;
                    text.push_str("`…`");
                }
                other => text.push(other),
            }
        }
    }

    /// At `{` after `$`: `${…}` kept as text, up to the matching `}`.
    fn braced(&mut self) -> Result<String, SplitError> {
        let mut text = String::from("$");
        let mut open = 0usize;
        loop {
            let c = self.peek().ok_or(SplitError::Unbalanced)?;
            self.pos += 1;
            text.push(c);
            match c {
                '{' => open += 1,
                '}' => {
                    open -= 1;
                    if open == 0 {
                        return Ok(text);
                    }
                }
                _ => {}
            }
        }
    }
}
