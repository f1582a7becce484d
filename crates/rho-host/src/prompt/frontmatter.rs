//! The YAML frontmatter of skill and prompt-template files (`---` … `---` at the top).
//!
//! Pi parses it with a full YAML parser. These files only ever carry flat `key: value` maps, so
//! this module reads that subset — plain, quoted and block (`|`, `>`) scalars, plus nested lists
//! and maps it keeps as opaque values — and rejects the YAML that Pi's parser rejects in practice
//! (an unquoted `: ` inside a value, duplicate keys, a line that is no `key:`), because a
//! rejected frontmatter decides whether a skill loads.

use std::fmt;

/// One frontmatter value, as far as skills and templates care.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrontmatterValue {
    /// A string scalar (plain, quoted or block).
    String(String),
    /// `true` / `false` (YAML 1.2 core schema spellings).
    Bool(bool),
    /// An empty value, `null` or `~`.
    Null,
    /// A number, list or map, kept as its source text.
    Other(String),
}

/// The parsed frontmatter map, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frontmatter {
    entries: Vec<(String, FrontmatterValue)>,
}

impl Frontmatter {
    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&FrontmatterValue> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The value of `key` when it is a string scalar.
    pub fn string(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(FrontmatterValue::String(s)) => Some(s),
            _ => None,
        }
    }

    /// Whether `key` is exactly the boolean `true` (Pi compares with `=== true`).
    pub fn is_true(&self, key: &str) -> bool {
        matches!(self.get(key), Some(FrontmatterValue::Bool(true)))
    }
}

/// A file split into frontmatter and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// The frontmatter map (empty when the file has none).
    pub frontmatter: Frontmatter,
    /// The body: trimmed when a frontmatter block was present, else the whole (newline-normalised)
    /// text, as Pi leaves it.
    pub body: String,
}

/// A frontmatter block that is not valid YAML.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct FrontmatterError {
    /// 1-based line inside the frontmatter block.
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for FrontmatterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid frontmatter at line {}: {}",
            self.line, self.reason
        )
    }
}

/// Splits `content` into frontmatter and body with Pi's rules: CRLF/CR become LF; a block exists
/// only if the text starts with `---` and a later line starts with `---`.
pub fn parse_frontmatter(content: &str) -> Result<Document, FrontmatterError> {
    let normalized = content.replace("\r\n", "\n").replace('\r', "\n");
    if !normalized.starts_with("---") {
        return Ok(Document {
            frontmatter: Frontmatter::default(),
            body: normalized,
        });
    }
    let Some(rel_end) = normalized.get(3..).and_then(|rest| rest.find("\n---")) else {
        return Ok(Document {
            frontmatter: Frontmatter::default(),
            body: normalized,
        });
    };
    let end = rel_end + 3;
    let yaml = normalized.get(4..end).unwrap_or("");
    let body = normalized.get(end + 4..).unwrap_or("").trim().to_string();
    let frontmatter = parse_map(yaml)?;
    Ok(Document { frontmatter, body })
}

/// The body of `content` without its frontmatter (Pi's `stripFrontmatter`).
pub fn strip_frontmatter(content: &str) -> Result<String, FrontmatterError> {
    parse_frontmatter(content).map(|d| d.body)
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

fn err(line: usize, reason: &str) -> FrontmatterError {
    FrontmatterError {
        line: line + 1,
        reason: reason.to_string(),
    }
}

fn parse_map(yaml: &str) -> Result<Frontmatter, FrontmatterError> {
    let lines: Vec<&str> = yaml.split('\n').collect();
    let mut entries: Vec<(String, FrontmatterValue)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if is_blank_or_comment(line) {
            i += 1;
            continue;
        }
        if line.starts_with('\t') {
            return Err(err(i, "tabs are not allowed as indentation"));
        }
        if indent_of(line) > 0 {
            return Err(err(i, "unexpected indentation"));
        }
        let (key, rest) = split_key(line).ok_or_else(|| err(i, "expected a `key: value` line"))?;
        if entries.iter().any(|(k, _)| *k == key) {
            return Err(err(i, "map keys must be unique"));
        }
        // The lines belonging to this value: indented or blank, up to the next top-level line.
        let mut j = i + 1;
        while j < lines.len() && (lines[j].trim().is_empty() || indent_of(lines[j]) > 0) {
            j += 1;
        }
        let continuation = &lines[i + 1..j];
        let value = parse_value(rest.trim(), continuation, i)?;
        entries.push((key, value));
        i = j;
    }
    Ok(Frontmatter { entries })
}

fn split_key(line: &str) -> Option<(String, &str)> {
    let (key, rest) = if let Some(quote @ ('"' | '\'')) = line.chars().next() {
        let close = line[1..].find(quote)? + 1;
        let rest = line[close + 1..].strip_prefix(':')?;
        (line[1..close].to_string(), rest)
    } else {
        let colon = line
            .find(": ")
            .or_else(|| line.strip_suffix(':').map(|s| s.len()))?;
        (line[..colon].trim_end().to_string(), &line[colon + 1..])
    };
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    Some((key, rest))
}

fn parse_value(
    first: &str,
    continuation: &[&str],
    line: usize,
) -> Result<FrontmatterValue, FrontmatterError> {
    let first = strip_comment(first);
    if first.is_empty() {
        let nested: Vec<&str> = continuation
            .iter()
            .copied()
            .filter(|l| !is_blank_or_comment(l))
            .collect();
        if nested.is_empty() {
            return Ok(FrontmatterValue::Null);
        }
        return Ok(FrontmatterValue::Other(nested.join("\n")));
    }
    if let Some(header) = first.strip_prefix('|').or_else(|| first.strip_prefix('>')) {
        let folded = first.starts_with('>');
        return block_scalar(header, folded, continuation, line).map(FrontmatterValue::String);
    }
    if first.starts_with('"') || first.starts_with('\'') {
        return quoted_scalar(first, continuation, line).map(FrontmatterValue::String);
    }
    if first.starts_with('[') || first.starts_with('{') {
        let mut text = first.to_string();
        for l in continuation {
            text.push('\n');
            text.push_str(l);
        }
        return Ok(FrontmatterValue::Other(text));
    }
    let mut parts = vec![first.to_string()];
    for (offset, l) in continuation.iter().enumerate() {
        if is_blank_or_comment(l) {
            continue;
        }
        let t = strip_comment(l.trim());
        if t.contains(": ") || t.ends_with(':') {
            return Err(err(
                line + 1 + offset,
                "nested mappings are not allowed in compact mappings",
            ));
        }
        parts.push(t.to_string());
    }
    let text = parts.join(" ");
    if text.contains(": ") {
        return Err(err(
            line,
            "nested mappings are not allowed in compact mappings",
        ));
    }
    Ok(plain_scalar(text))
}

fn strip_comment(text: &str) -> &str {
    match text.find(" #") {
        Some(pos) if !text.starts_with('"') && !text.starts_with('\'') => text[..pos].trim_end(),
        _ => text,
    }
}

fn plain_scalar(text: String) -> FrontmatterValue {
    match text.as_str() {
        "true" | "True" | "TRUE" => FrontmatterValue::Bool(true),
        "false" | "False" | "FALSE" => FrontmatterValue::Bool(false),
        "null" | "Null" | "NULL" | "~" => FrontmatterValue::Null,
        t if t.parse::<f64>().is_ok() && !t.chars().any(|c| c.is_alphabetic()) => {
            FrontmatterValue::Other(text)
        }
        _ => FrontmatterValue::String(text),
    }
}

fn quoted_scalar(
    first: &str,
    continuation: &[&str],
    line: usize,
) -> Result<String, FrontmatterError> {
    let quote = first.chars().next().unwrap_or('"');
    // A quoted scalar may span lines; line breaks fold into single spaces.
    let mut raw = first[1..].to_string();
    for l in continuation {
        raw.push(' ');
        raw.push_str(l.trim());
    }
    let mut out = String::new();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == quote {
            if quote == '\'' && chars.peek() == Some(&'\'') {
                chars.next();
                out.push('\'');
                continue;
            }
            let rest: String = chars.collect();
            if !is_blank_or_comment(&rest) {
                return Err(err(line, "unexpected text after a quoted value"));
            }
            return Ok(out);
        }
        if c == '\\' && quote == '"' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('"') => out.push('"'),
                Some('\\') => out.push('\\'),
                Some('/') => out.push('/'),
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => return Err(err(line, "unterminated quoted value")),
            }
            continue;
        }
        out.push(c);
    }
    Err(err(line, "unterminated quoted value"))
}

/// A `|` or `>` block scalar. Its indentation is the leading spaces of its first non-blank line;
/// a later line indented less is an error unless it holds only spaces, as in Pi's YAML parser
/// ("block scalar lines must not be less indented than their first line").
fn block_scalar(
    header: &str,
    folded: bool,
    continuation: &[&str],
    line: usize,
) -> Result<String, FrontmatterError> {
    let chomp = if header.contains('-') {
        '-'
    } else if header.contains('+') {
        '+'
    } else {
        ' '
    };
    let indent = continuation
        .iter()
        .find(|l| !l.trim().is_empty())
        .map(|l| indent_of(l))
        .unwrap_or(0);
    let mut lines: Vec<&str> = Vec::with_capacity(continuation.len());
    for (offset, l) in continuation.iter().enumerate() {
        // The indentation is counted in spaces, one byte each, so it is cut only where the line
        // really starts with that many: other leading characters (a tab, a no-break space) are
        // content, never indentation.
        if indent_of(l) >= indent {
            lines.push(l.get(indent..).unwrap_or(""));
        } else if l.bytes().all(|b| b == b' ') {
            lines.push("");
        } else {
            return Err(err(
                line + 1 + offset,
                "block scalar lines must not be less indented than their first line",
            ));
        }
    }
    let mut text = if folded {
        let mut out = String::new();
        let mut prev_blank = true;
        for l in &lines {
            if l.is_empty() {
                out.push('\n');
                prev_blank = true;
            } else {
                if !prev_blank {
                    out.push(' ');
                }
                out.push_str(l);
                prev_blank = false;
            }
        }
        out
    } else {
        lines.join("\n")
    };
    let content_end = text.trim_end_matches('\n').len();
    match chomp {
        '-' => text.truncate(content_end),
        '+' => text.push('\n'),
        _ => {
            text.truncate(content_end);
            if content_end > 0 {
                text.push('\n');
            }
        }
    }
    Ok(text)
}
