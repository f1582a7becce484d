//! A shell command as the simple commands it runs, from tree-sitter-bash's syntax tree (the
//! grammar Codex and Gemini CLI use for the same job).
//!
//! Every `command` node is visited wherever it sits: lists, pipelines, subshells, groups,
//! `if`/`while`/`for`/`case` bodies, function bodies, `$( … )`, backticks, `<( … )`, arrays,
//! heredoc bodies. Each word is a [`Word::Lit`] with quotes and escapes removed (`'rm'`, `"rm"`,
//! `$'rm'`, `r\m` are all `rm`) or a [`Word::Dyn`] whose value only the shell knows (expansions,
//! substitutions, globs, braces, `~`).
//!
//! tree-sitter-bash is not bash: it recovers from errors, and a few heredoc forms it reads
//! silently wrong. Any error node, and each silent case found (a token dropped from the tree, a
//! substitution in a heredoc body left unparsed, a misread `-<<`, a heredoc line taken as more
//! words), is a [`ParseError`]: the rules then treat the command as one they cannot check.

use tree_sitter::{Node, Parser};

/// Commands longer than this are not parsed (a `Dyn` word keeps its text, so pathological
/// nesting would cost quadratic time).
const MAX_INPUT: usize = 64 * 1024;

/// One word of a simple command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Word {
    /// Its value is known: quotes and escapes removed.
    Lit(String),
    /// Its value depends on an expansion; the text as written.
    Dyn(String),
}

impl Word {
    /// The value, if known.
    pub fn literal(&self) -> Option<&str> {
        match self {
            Word::Lit(text) => Some(text),
            Word::Dyn(_) => None,
        }
    }

    /// The value, or the text as written.
    pub fn text(&self) -> &str {
        match self {
            Word::Lit(text) | Word::Dyn(text) => text,
        }
    }
}

/// A command that cannot be read reliably.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} at line {line}, column {column}")]
pub struct ParseError {
    /// 1-based line of the first problem.
    pub line: usize,
    /// 1-based column (bytes).
    pub column: usize,
    /// What is wrong there.
    pub message: String,
}

/// The argv of every simple command in `script`, outer before inner, left to right. Prefix
/// assignments (`FOO=1 rm x`) and redirections are left out.
pub fn simple_commands(script: &str) -> Result<Vec<Vec<Word>>, ParseError> {
    if script.len() > MAX_INPUT {
        return Err(error_at(
            1,
            1,
            "the command is longer than 64 KiB".to_owned(),
        ));
    }
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .map_err(|e| error_at(1, 1, format!("the bash grammar cannot be loaded ({e})")))?;
    let tree = parser
        .parse(script, None)
        .ok_or_else(|| error_at(1, 1, "the parser gave up".to_owned()))?;
    let root = tree.root_node();
    if root.has_error() {
        return Err(first_error(root, script));
    }
    check_coverage(root, script)?;
    let src = script.as_bytes();
    let mut out = Vec::new();
    // An explicit stack: `a && b && c …` nests one level per operator.
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "heredoc_redirect" => check_heredoc(node, script)?,
            "command" => out.push(command_words(node, src)),
            "declaration_command" | "unset_command" => out.push(declaration_words(node, src)),
            _ => {}
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    Ok(out)
}

fn error_at(line: usize, column: usize, message: String) -> ParseError {
    ParseError {
        line,
        column,
        message,
    }
}

fn error_at_node(node: Node, message: String) -> ParseError {
    let at = node.start_position();
    error_at(at.row + 1, at.column + 1, message)
}

/// The first error or missing node, in source order.
fn first_error(root: Node, script: &str) -> ParseError {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            let message = if node.is_missing() {
                format!("missing {}", node.kind())
            } else {
                let shown: String = script[node.start_byte()..node.end_byte()]
                    .chars()
                    .take(20)
                    .collect();
                format!("unexpected {shown:?}")
            };
            return error_at_node(node, message);
        }
        if node.has_error() {
            let mut cursor = node.walk();
            let children: Vec<Node> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    error_at(1, 1, "syntax error".to_owned())
}

/// tree-sitter-bash can drop a token without an error (`cat - <<EOF` loses the `-`): every
/// byte between the tree's leaves must be blank or `\<newline>`. A heredoc body is one leaf;
/// an unquoted word never holds a bare newline (a heredoc line starting with `\` comes back
/// as more words of the operator's line).
fn check_coverage(root: Node, script: &str) -> Result<(), ParseError> {
    let skipped = |from: usize, to: usize, node: Node| {
        let gap = script.get(from..to).unwrap_or("");
        if to > from && !gap.replace("\\\n", "").trim().is_empty() {
            let shown: String = gap.trim().chars().take(20).collect();
            return Err(error_at_node(node, format!("the parser skipped {shown:?}")));
        }
        Ok(())
    };
    let mut at = 0;
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.child_count() == 0 || node.kind() == "heredoc_body" {
            skipped(at, node.start_byte(), node)?;
            let text = &script[node.start_byte()..node.end_byte()];
            if node.kind() == "word" && text.replace("\\\n", "").contains('\n') {
                return Err(error_at_node(node, "a word spans lines".to_owned()));
            }
            at = at.max(node.end_byte());
            continue;
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    skipped(at, script.len(), root)
}

/// In an unquoted heredoc body every `$(` and `` ` `` must lie in a parsed substitution
/// (tree-sitter-bash skips those on lines starting with blanks, and every backtick); the
/// operator must be exactly `<<` or `<<-` (`cmd -<<EOF` is misread as one `-<<`).
fn check_heredoc(redirect: Node, script: &str) -> Result<(), ParseError> {
    let mut cursor = redirect.walk();
    let children: Vec<Node> = redirect.children(&mut cursor).collect();
    let text = |node: &Node| &script[node.start_byte()..node.end_byte()];
    let operator = children.iter().find(|child| !child.is_named());
    if !operator.is_some_and(|op| matches!(text(op), "<<" | "<<-")) {
        return Err(error_at_node(
            redirect,
            "a heredoc operator it cannot read".to_owned(),
        ));
    }
    let quoted = children
        .iter()
        .any(|c| c.kind() == "heredoc_start" && text(c).contains(['\'', '"', '\\']));
    if quoted {
        return Ok(());
    }
    for body in children.iter().filter(|c| c.kind() == "heredoc_body") {
        let mut parsed = Vec::new();
        let mut stack = vec![*body];
        while let Some(node) = stack.pop() {
            if node.kind() == "command_substitution" {
                parsed.push(node.start_byte()..node.end_byte());
                continue;
            }
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
        let body_text = text(body);
        for (i, _) in body_text.match_indices(['$', '`']) {
            let opens = body_text[i..].starts_with('`') || body_text[i..].starts_with("$(");
            let at = body.start_byte() + i;
            if opens && !parsed.iter().any(|range| range.contains(&at)) {
                return Err(error_at_node(
                    *body,
                    "a command substitution in a heredoc it cannot follow".to_owned(),
                ));
            }
        }
    }
    Ok(())
}

fn source<'a>(node: Node, src: &'a [u8]) -> &'a str {
    node.utf8_text(src).unwrap_or("")
}

/// A `command` node's name and arguments.
fn command_words(node: Node, src: &[u8]) -> Vec<Word> {
    let mut words = Vec::new();
    let mut cursor = node.walk();
    for (i, child) in node.children(&mut cursor).enumerate() {
        let field = u32::try_from(i)
            .ok()
            .and_then(|i| node.field_name_for_child(i));
        if matches!(field, Some("name" | "argument")) {
            words.push(word(child, src));
        }
    }
    words
}

/// `export A=1 B`, `local x`, `unset y`: the keyword, then each operand.
fn declaration_words(node: Node, src: &[u8]) -> Vec<Word> {
    let mut words = Vec::new();
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        let word = match child.kind() {
            "comment" => continue,
            "variable_name" => Word::Lit(source(child, src).to_owned()),
            _ if !child.is_named() => Word::Lit(source(child, src).to_owned()),
            "variable_assignment" => match literal(child, src) {
                Some(value) => Word::Lit(value),
                None => Word::Dyn(source(child, src).to_owned()),
            },
            _ => word(child, src),
        };
        words.push(word);
    }
    words
}

/// A word node's value.
fn word(node: Node, src: &[u8]) -> Word {
    match literal(node, src) {
        Some(value) => Word::Lit(value),
        None => Word::Dyn(source(node, src).to_owned()),
    }
}

/// The value of a word node, or `None` when only the shell knows it.
fn literal(node: Node, src: &[u8]) -> Option<String> {
    let mut pieces = Pieces::default();
    if !pieces.add(node, src) || pieces.expands() {
        return None;
    }
    Some(pieces.value)
}

/// A word's value built piece by piece, remembering what was quoted (only unquoted text
/// expands further: globs, braces, `~`).
#[derive(Default)]
struct Pieces {
    value: String,
    /// The value with quoted characters replaced by NUL.
    unquoted: String,
}

impl Pieces {
    fn push(&mut self, text: &str, quoted: bool) {
        self.value.push_str(text);
        if quoted {
            self.unquoted.extend(text.chars().map(|_| '\0'));
        } else {
            self.unquoted.push_str(text);
        }
    }

    /// Adds `node`'s value; `false` when it is not literal.
    fn add(&mut self, node: Node, src: &[u8]) -> bool {
        let raw = source(node, src);
        match node.kind() {
            "command_name" | "variable_assignment" => {
                let mut cursor = node.walk();
                let children: Vec<Node> = node.children(&mut cursor).collect();
                self.add_all(node, &children, src)
            }
            "variable_name" | "=" => {
                self.push(raw, true);
                true
            }
            "word" | "number" => self.unquoted_text(raw),
            "raw_string" => match raw.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
                Some(inner) => {
                    self.push(inner, true);
                    true
                }
                None => false,
            },
            "string" | "translated_string" => {
                let mut cursor = node.walk();
                let plain = node
                    .named_children(&mut cursor)
                    .all(|c| c.kind() == "string_content");
                let inner = raw
                    .trim_start_matches('$')
                    .strip_prefix('"')
                    .and_then(|r| r.strip_suffix('"'));
                match inner {
                    Some(inner) if plain => self.double_quoted(inner),
                    _ => false,
                }
            }
            "ansi_c_string" => {
                let decoded = raw
                    .strip_prefix("$'")
                    .and_then(|r| r.strip_suffix('\''))
                    .and_then(ansi_c);
                match decoded {
                    Some(value) => {
                        self.push(&value, true);
                        true
                    }
                    None => false,
                }
            }
            "concatenation" => {
                let mut cursor = node.walk();
                let children: Vec<Node> = node.children(&mut cursor).collect();
                self.add_all(node, &children, src)
            }
            // Expansions, substitutions, arithmetic, braces, extglobs, arrays, …
            _ => false,
        }
    }

    /// Adds children that must cover `node` whole (no gap holding an unnamed `$`).
    fn add_all(&mut self, node: Node, children: &[Node], src: &[u8]) -> bool {
        let mut at = node.start_byte();
        for child in children {
            if child.start_byte() != at || !self.add(*child, src) {
                return false;
            }
            at = child.end_byte();
        }
        at == node.end_byte() && !children.is_empty()
    }

    /// Unquoted text: `\x` is a quoted `x`, `\<newline>` vanishes; a `$` or `` ` `` left here
    /// was not parsed as an expansion, so the value is unknown.
    fn unquoted_text(&mut self, raw: &str) -> bool {
        let mut chars = raw.chars();
        let mut plain = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('\n') => {}
                    Some(next) => {
                        self.push(&std::mem::take(&mut plain), false);
                        self.push(next.encode_utf8(&mut [0; 4]), true);
                    }
                    None => plain.push('\\'),
                },
                '$' | '`' => return false,
                _ => plain.push(c),
            }
        }
        self.push(&plain, false);
        true
    }

    /// Inside `"…"` without expansions: only `\$ \` \" \\ \<newline>` are escapes.
    fn double_quoted(&mut self, inner: &str) -> bool {
        let mut value = String::new();
        let mut chars = inner.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.peek() {
                    Some('\n') => {
                        chars.next();
                    }
                    Some(&next @ ('$' | '`' | '"' | '\\')) => {
                        chars.next();
                        value.push(next);
                    }
                    _ => value.push('\\'),
                },
                '$' | '`' => return false,
                _ => value.push(c),
            }
        }
        self.push(&value, true);
        true
    }

    /// Whether the unquoted part still expands: a glob (`* ? [`), a brace list or range, a
    /// leading `~`.
    fn expands(&self) -> bool {
        let text = &self.unquoted;
        if text.contains(['*', '?', '[']) || text.starts_with('~') {
            return true;
        }
        match (text.find('{'), text.rfind('}')) {
            (Some(open), Some(close)) if open < close => {
                let between = &text[open..close];
                between.contains(',') || between.contains("..")
            }
            _ => false,
        }
    }
}

/// The value of the inside of `$'…'`; `None` for `\c` and bytes that are not text.
fn ansi_c(inner: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = inner.chars().peekable();
    let digits = |chars: &mut std::iter::Peekable<std::str::Chars>, radix: u32, max: usize| {
        let (mut value, mut count) = (0u32, 0);
        while count < max {
            match chars.peek().and_then(|c| c.to_digit(radix)) {
                Some(digit) => {
                    value = value * radix + digit;
                    chars.next();
                    count += 1;
                }
                None => break,
            }
        }
        (value, count)
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(escape) = chars.next() else {
            out.push('\\');
            break;
        };
        let decoded = match escape {
            'a' => '\u{7}',
            'b' => '\u{8}',
            'e' | 'E' => '\u{1b}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            '\\' | '\'' | '"' | '?' => escape,
            '0'..='7' => {
                let (rest, count) = digits(&mut chars, 8, 2);
                let value = ((escape.to_digit(8)? << (3 * count)) | rest) & 0xff;
                char::from_u32(value).filter(char::is_ascii)?
            }
            'x' | 'u' | 'U' => {
                let max = match escape {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let (value, count) = digits(&mut chars, 16, max);
                if count == 0 {
                    out.push('\\');
                    escape
                } else if escape == 'x' {
                    char::from_u32(value).filter(char::is_ascii)?
                } else {
                    char::from_u32(value)?
                }
            }
            'c' => return None,
            other => {
                out.push('\\');
                other
            }
        };
        out.push(decoded);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// Each command as its words, `Dyn` ones in `⟨…⟩`.
    fn shown(script: &str) -> Result<Vec<String>, String> {
        simple_commands(script)
            .map(|commands| {
                commands
                    .iter()
                    .map(|words| {
                        words
                            .iter()
                            .map(|word| match word {
                                Word::Lit(text) => text.clone(),
                                Word::Dyn(text) => format!("⟨{text}⟩"),
                            })
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .collect()
            })
            .map_err(|error| error.message)
    }

    #[test]
    fn every_simple_command_is_found_with_quotes_removed() {
        let cases: &[(&str, &[&str])] = &[
            ("true && git push", &["true", "git push"]),
            (
                "echo $(git push origin)",
                &["echo ⟨$(git push origin)⟩", "git push origin"],
            ),
            ("ls | (cd sub; git push)", &["ls", "cd sub", "git push"]),
            ("$'rm' -fr x", &["rm -fr x"]),
            ("r\\m -rf x; r\"m\" -r", &["rm -rf x", "rm -r"]),
            ("if true; then rm -r -f x; fi", &["true", "rm -r -f x"]),
            ("FOO=1 rm x", &["rm x"]),
            ("rm \"$HOME\"", &["rm ⟨\"$HOME\"⟩"]),
            ("{ rm -rf x; }", &["rm -rf x"]),
            ("f() { rm -rf x; }; f", &["rm -rf x", "f"]),
            ("cat <<EOF\n$(rm -rf x)\nEOF", &["cat", "rm -rf x"]),
            ("echo `rm -rf x`", &["echo ⟨`rm -rf x`⟩", "rm -rf x"]),
            ("echo ${x:-$(rm c)}", &["echo ⟨${x:-$(rm c)}⟩", "rm c"]),
            ("export A=$(rm y) B=2", &["export ⟨A=$(rm y)⟩ B=2", "rm y"]),
            ("case $x in a) rm a;; esac", &["rm a"]),
            ("ls *.rs ~/x 'q*'", &["ls ⟨*.rs⟩ ⟨~/x⟩ q*"]),
            ("bash -c 'rm -rf x'", &["bash -c rm -rf x"]),
        ];
        for (script, expected) in cases {
            assert_eq!(
                shown(script),
                Ok(expected.iter().map(|s| (*s).to_owned()).collect()),
                "{script}"
            );
        }
    }

    #[test]
    fn what_cannot_be_read_reliably_is_an_error() {
        for script in [
            "echo 'unbalanced",
            "ls &&",
            "cat <<EOF\n  $(rm r)\nEOF",
            "cat <<EOF\n`rm r`\nEOF",
            "python3 - <<'PY'\nprint(1)\nPY",
        ] {
            assert!(shown(script).is_err(), "{script}: {:?}", shown(script));
        }
        let long = "a ".repeat(40_000);
        assert_eq!(
            shown(&long),
            Err("the command is longer than 64 KiB".to_owned())
        );
    }

    #[test]
    fn deep_nesting_is_parsed_without_overflowing_the_stack() {
        let script = format!("{}rm x{}", "$(".repeat(5_000), ")".repeat(5_000));
        let commands = simple_commands(&script).unwrap();
        assert_eq!(
            commands.last().unwrap(),
            &[Word::Lit("rm".into()), Word::Lit("x".into())]
        );
    }
}
