//! One tool call as a block: a title (status icon, name, key arguments, elapsed time) and a body
//! that depends on the tool: live and final `bash` output (its last lines), `read` contents
//! highlighted by file type (its first lines), `edit`'s diff, `write`'s content, refusals with
//! their reason. Collapsed bodies end in Pi's "... (N more lines, ctrl+o to expand)".

use std::time::Instant;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;

use super::diff;
use super::highlight::{PLAIN_CODE, highlight, language_of_path};
use super::spinner::spinner;
use super::text::{Break, truncate, wrap_spans};
use crate::transcript::{ToolEntry, ToolStatus};

/// Rows of `bash` output shown while collapsed (its newest ones), as Pi's preview.
pub const BASH_PREVIEW_LINES: usize = 5;
/// Lines of `read` and `write` content, and of unknown tools' output, shown while collapsed.
pub const FILE_PREVIEW_LINES: usize = 10;
/// Lines of `grep` matches shown while collapsed.
pub const GREP_PREVIEW_LINES: usize = 15;
/// Lines of `find` and `ls` listings shown while collapsed.
pub const LIST_PREVIEW_LINES: usize = 20;
/// Rows of a diff shown while collapsed.
pub const DIFF_PREVIEW_LINES: usize = 30;

const DIM: Style = Style::new().fg(Color::DarkGray);
const OUTPUT: Style = Style::new().fg(Color::Gray);
const ERROR: Style = Style::new().fg(Color::Red);
/// Refusals are not failures of the tool: the host chose not to run it.
const REFUSAL: Style = Style::new().fg(Color::Magenta);
/// What the hooks said of the call.
const HOOK: Style = Style::new().fg(Color::Cyan);

/// The block's rows at `width` columns; `expanded` shows bodies whole (Ctrl+O).
pub fn lines(tool: &ToolEntry, expanded: bool, width: usize, now: Instant) -> Vec<Line<'static>> {
    let mut out = vec![title(tool, width, now)];
    let indent = [Span::raw("  ")];
    let width = width.max(3);
    let wrap = |spans: &[Span<'static>], style_break: Break| {
        wrap_spans(spans, width, &indent, &indent, style_break)
    };
    for hook in &tool.hooks {
        out.extend(wrap(
            &[Span::styled(format!("↳ {hook}"), HOOK)],
            Break::Words,
        ));
    }
    let output = tool.output.trim_end();
    let diff_text = tool
        .details
        .as_ref()
        .and_then(|d| d.get("diff"))
        .and_then(Value::as_str)
        .filter(|d| !d.is_empty());
    match (tool.status, tool.name.as_str()) {
        (ToolStatus::Refused, _) => {
            let reason = if output.is_empty() { "refused" } else { output };
            for line in reason.lines() {
                out.extend(wrap(
                    &[Span::styled(line.to_owned(), REFUSAL)],
                    Break::Words,
                ));
            }
        }
        (ToolStatus::Failed, _) => {
            let rows = text_lines(output, ERROR);
            let count = rows.len();
            out.extend(head(rows, count, FILE_PREVIEW_LINES, expanded, None, wrap));
        }
        (_, "bash") => {
            let rows: Vec<Line<'static>> = text_lines(output, OUTPUT)
                .iter()
                .flat_map(|l| wrap(&l.spans, Break::Columns))
                .collect();
            let hidden = if expanded {
                0
            } else {
                rows.len().saturating_sub(BASH_PREVIEW_LINES)
            };
            if hidden > 0 {
                out.push(hint(&format!("... ({hidden} earlier lines,")));
            }
            out.extend(rows.into_iter().skip(hidden));
        }
        (_, "edit" | "write") if diff_text.is_some() => {
            let rows = diff::render(diff_text.unwrap_or_default(), width.saturating_sub(2));
            let rows = rows
                .into_iter()
                .map(|l| {
                    let mut spans = indent.to_vec();
                    spans.extend(l.spans);
                    Line::from(spans)
                })
                .collect();
            out.extend(cut(rows, DIFF_PREVIEW_LINES, expanded, None));
        }
        (_, "write") => {
            let content = tool.args.get("content").and_then(Value::as_str);
            let content = content.unwrap_or_default().trim_end_matches('\n');
            if !content.is_empty() {
                let (rows, total) = code_lines(content, path(&tool.args), expanded);
                out.extend(head(
                    rows,
                    total,
                    FILE_PREVIEW_LINES,
                    expanded,
                    Some(total),
                    wrap,
                ));
            }
        }
        (_, "read") if !output.is_empty() => {
            let (rows, total) = code_lines(output, path(&tool.args), expanded);
            out.extend(head(rows, total, FILE_PREVIEW_LINES, expanded, None, wrap));
        }
        (_, name) if !output.is_empty() => {
            let limit = match name {
                "grep" => GREP_PREVIEW_LINES,
                "find" | "ls" => LIST_PREVIEW_LINES,
                _ => FILE_PREVIEW_LINES,
            };
            let rows = text_lines(output, OUTPUT);
            let count = rows.len();
            out.extend(head(rows, count, limit, expanded, None, wrap));
        }
        _ => {}
    }
    out
}

/// `{icon} {name} {arguments} ({elapsed})`, the arguments cut to fit one row.
fn title(tool: &ToolEntry, width: usize, now: Instant) -> Line<'static> {
    let (icon, color) = match tool.status {
        ToolStatus::Running => (
            spinner(now.saturating_duration_since(tool.started)),
            Color::Cyan,
        ),
        ToolStatus::Done => ('✓', Color::Green),
        ToolStatus::Failed => ('✗', Color::Red),
        ToolStatus::Refused => ('⊘', Color::Magenta),
        ToolStatus::Cancelled => ('■', Color::Yellow),
    };
    let elapsed = tool
        .elapsed
        .unwrap_or_else(|| now.saturating_duration_since(tool.started));
    let suffix = match tool.status {
        ToolStatus::Refused => " blocked".to_owned(),
        ToolStatus::Cancelled => format!(" cancelled ({:.1}s)", elapsed.as_secs_f64()),
        _ => format!(" ({:.1}s)", elapsed.as_secs_f64()),
    };
    let head = format!("{icon} {}", tool.name);
    let room = width.saturating_sub(head.chars().count() + suffix.chars().count() + 1);
    let arguments = truncate(&arguments(tool).replace('\n', " "), room);
    let suffix_style = match tool.status {
        ToolStatus::Refused => REFUSAL.add_modifier(Modifier::BOLD),
        _ => DIM,
    };
    Line::from(vec![
        Span::styled(head, Style::new().fg(color).add_modifier(Modifier::BOLD)),
        Span::raw(" "),
        Span::styled(arguments, Style::new().fg(Color::White)),
        Span::styled(suffix, suffix_style),
    ])
}

/// What the call does, in a few words: the command, the path, the pattern and where.
pub fn arguments(tool: &ToolEntry) -> String {
    let args = &tool.args;
    let text = |key: &str| args.get(key).and_then(Value::as_str);
    match tool.name.as_str() {
        "read" => {
            let mut out = path(args).unwrap_or("...").to_owned();
            let offset = args.get("offset").and_then(Value::as_u64);
            let limit = args.get("limit").and_then(Value::as_u64);
            if offset.is_some() || limit.is_some() {
                let start = offset.unwrap_or(1);
                out.push_str(&format!(":{start}"));
                if let Some(limit) = limit {
                    out.push_str(&format!("-{}", (start + limit).saturating_sub(1)));
                }
            }
            out
        }
        "grep" => format!(
            "/{}/ in {}",
            text("pattern").unwrap_or_default(),
            text("path").unwrap_or(".")
        ),
        "find" => format!(
            "{} in {}",
            text("pattern").unwrap_or_default(),
            text("path").unwrap_or(".")
        ),
        "ls" => text("path").unwrap_or(".").to_owned(),
        _ => tool.key_argument().unwrap_or_default(),
    }
}

fn path(args: &Value) -> Option<&str> {
    args.get("path")
        .or_else(|| args.get("file_path"))
        .and_then(Value::as_str)
}

/// Each line of `text` as one unwrapped line in `style`, tabs as spaces.
fn text_lines(text: &str, style: Style) -> Vec<Line<'static>> {
    text.split('\n')
        .map(|l| Line::from(Span::styled(l.replace('\t', "    "), style)))
        .collect()
}

/// The lines of file content to show (all when expanded, else the first
/// [`FILE_PREVIEW_LINES`]), highlighted when its path names a language, and the content's line
/// count. Only what is shown is highlighted: a 2,000-line `read` costs ten lines collapsed.
fn code_lines(content: &str, path: Option<&str>, expanded: bool) -> (Vec<Line<'static>>, usize) {
    let total = content.split('\n').count();
    let shown = if expanded {
        content
    } else {
        let end = content
            .match_indices('\n')
            .nth(FILE_PREVIEW_LINES - 1)
            .map_or(content.len(), |(n, _)| n);
        &content[..end]
    };
    let lines = match path.and_then(language_of_path) {
        Some(language) => highlight(shown, language).as_ref().clone(),
        None => text_lines(shown, PLAIN_CODE),
    };
    (lines, total)
}

/// The first `limit` of `count` logical lines (all when expanded) wrapped, then the hint for
/// the rest; `lines` may already stop at `limit`.
fn head(
    lines: Vec<Line<'static>>,
    count: usize,
    limit: usize,
    expanded: bool,
    total: Option<usize>,
    wrap: impl Fn(&[Span<'static>], Break) -> Vec<Line<'static>>,
) -> Vec<Line<'static>> {
    let shown = if expanded {
        lines.len()
    } else {
        limit.min(lines.len())
    };
    let hidden = count.saturating_sub(shown);
    let mut out: Vec<Line<'static>> = lines
        .iter()
        .take(shown)
        .flat_map(|l| wrap(&l.spans, Break::Columns))
        .collect();
    if hidden > 0 {
        out.push(more(hidden, total));
    }
    out
}

/// The first `limit` rows (all when expanded), then the hint for the rest.
fn cut(
    rows: Vec<Line<'static>>,
    limit: usize,
    expanded: bool,
    total: Option<usize>,
) -> Vec<Line<'static>> {
    let hidden = if expanded {
        0
    } else {
        rows.len().saturating_sub(limit)
    };
    let shown = rows.len() - hidden;
    let mut out: Vec<Line<'static>> = rows.into_iter().take(shown).collect();
    if hidden > 0 {
        out.push(more(hidden, total));
    }
    out
}

fn more(hidden: usize, total: Option<usize>) -> Line<'static> {
    match total {
        Some(total) => hint(&format!("... ({hidden} more lines, {total} total,")),
        None => hint(&format!("... ({hidden} more lines,")),
    }
}

/// Pi's collapsed-output hint: `{text} ctrl+o to expand)`.
fn hint(text: &str) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("  {text}"), DIM),
        Span::styled(" ctrl+o to expand)", DIM),
    ])
}
