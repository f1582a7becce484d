//! `edit`'s numbered diff (`details.diff`: `+<n> text`, `-<n> text`, ` <n> text`, ` <pad> ...`)
//! in colour: added green, removed red, context dim, with the changed middle of a one-line change
//! shown in reverse video so the eye finds it.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::text::{Break, wrap_spans};

const ADDED: Style = Style::new().fg(Color::Green);
const REMOVED: Style = Style::new().fg(Color::Red);
const CONTEXT: Style = Style::new().fg(Color::DarkGray);

/// One parsed diff line.
struct DiffLine<'a> {
    sign: char,
    number: &'a str,
    text: &'a str,
}

/// `+12 text` → sign, number field (with its padding), text; `None` for anything else.
fn parse(line: &str) -> Option<DiffLine<'_>> {
    let mut chars = line.chars();
    let sign = chars.next().filter(|c| matches!(c, '+' | '-' | ' '))?;
    let rest = &line[1..];
    // The number field is padding then digits; one space separates it from the text.
    let digits_start = rest.len() - rest.trim_start_matches(' ').len();
    let digits = rest[digits_start..]
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len() - digits_start);
    if digits == 0 {
        return None;
    }
    let number_end = digits_start + digits;
    let text = &rest[number_end..];
    let text = match text.strip_prefix(' ') {
        Some(text) => text,
        None if text.is_empty() => text,
        None => return None,
    };
    Some(DiffLine {
        sign,
        number: &rest[..number_end],
        text,
    })
}

/// The diff's rows at `width` columns (long lines wrap under their text, not their number).
pub fn render(diff: &str, width: usize) -> Vec<Line<'static>> {
    let lines: Vec<&str> = diff.split('\n').collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(line) = parse(lines[i]) else {
            out.extend(row(
                vec![Span::styled(lines[i].replace('\t', "    "), CONTEXT)],
                0,
                width,
            ));
            i += 1;
            continue;
        };
        // A lone removed line followed by a lone added one is a change within a line.
        let next = lines.get(i + 1).and_then(|l| parse(l));
        let after = lines.get(i + 2).and_then(|l| parse(l));
        if let Some(next) = next.filter(|n| line.sign == '-' && n.sign == '+')
            && after.is_none_or(|a| a.sign != '+')
            && (i == 0 || parse(lines[i - 1]).is_none_or(|p| p.sign != '-'))
        {
            let (old, new) = changed_middle(line.text, next.text);
            out.extend(numbered(&line, old, width));
            out.extend(numbered(&next, new, width));
            i += 2;
            continue;
        }
        let style = style_of(line.sign);
        out.extend(numbered(
            &line,
            vec![Span::styled(line.text.to_owned(), style)],
            width,
        ));
        i += 1;
    }
    out
}

fn style_of(sign: char) -> Style {
    match sign {
        '+' => ADDED,
        '-' => REMOVED,
        _ => CONTEXT,
    }
}

fn numbered(line: &DiffLine, text: Vec<Span<'static>>, width: usize) -> Vec<Line<'static>> {
    let style = style_of(line.sign);
    let head = format!("{}{} ", line.sign, line.number);
    let indent = head.chars().count();
    let mut spans = vec![Span::styled(head, style)];
    spans.extend(
        text.into_iter()
            .map(|s| Span::styled(s.content.replace('\t', "    "), s.style)),
    );
    row(spans, indent, width)
}

fn row(spans: Vec<Span<'static>>, indent: usize, width: usize) -> Vec<Line<'static>> {
    let rest = [Span::raw(" ".repeat(indent))];
    wrap_spans(&spans, width, &[], &rest, Break::Columns)
}

/// Both lines split into unchanged start, changed middle (reversed) and unchanged end.
fn changed_middle(old: &str, new: &str) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
    let old_chars: Vec<char> = old.chars().collect();
    let new_chars: Vec<char> = new.chars().collect();
    let prefix = old_chars
        .iter()
        .zip(&new_chars)
        .take_while(|(a, b)| a == b)
        .count();
    let room = old_chars.len().min(new_chars.len()) - prefix;
    let suffix = old_chars
        .iter()
        .rev()
        .zip(new_chars.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    let split = |chars: &[char], style: Style| {
        let end = chars.len() - suffix;
        let part = |range: &[char]| range.iter().collect::<String>();
        [
            Span::styled(part(&chars[..prefix]), style),
            Span::styled(
                part(&chars[prefix..end]),
                style.add_modifier(Modifier::REVERSED),
            ),
            Span::styled(part(&chars[end..]), style),
        ]
        .into_iter()
        .filter(|s| !s.content.is_empty())
        .collect()
    };
    (split(&old_chars, REMOVED), split(&new_chars, ADDED))
}
