//! `/name args` expansion of prompt templates: Pi's shell-like argument splitting and its
//! placeholders `$1`…, `$@`, `$ARGUMENTS`, `${@:N}` and `${@:N:L}`.

use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::templates::PromptTemplate;

// The patterns are constants; a failure to compile them is a bug caught by every test run.
#[allow(clippy::expect_used)]
static POSITIONAL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\$(\d+)").expect("valid regex"));
#[allow(clippy::expect_used)]
static SLICE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\$\{@:(\d+)(?::(\d+))?\}").expect("valid regex"));

/// Splits an argument string like a shell does, simply: spaces and tabs separate arguments;
/// `"…"` and `'…'` group (quotes removed, no escapes); an unclosed quote runs to the end;
/// empty quotes give no argument.
pub fn parse_command_args(args: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    for c in args.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => current.push(c),
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == ' ' || c == '\t' => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
            }
            None => current.push(c),
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Replaces the placeholders in `content`, in Pi's order: positional `$N` first (missing → empty;
/// `$0` is always empty), then `${@:N}` / `${@:N:L}` (1-based, `0` counts as `1`), then
/// `$ARGUMENTS`, then `$@` (all arguments joined by single spaces).
pub fn substitute_args(content: &str, args: &[String]) -> String {
    let positional = POSITIONAL.replace_all(content, |caps: &Captures| {
        let index = caps[1].parse::<usize>().ok().and_then(|n| n.checked_sub(1));
        index.and_then(|i| args.get(i)).cloned().unwrap_or_default()
    });
    let sliced = SLICE.replace_all(&positional, |caps: &Captures| {
        let start = caps[1]
            .parse::<usize>()
            .unwrap_or(usize::MAX)
            .saturating_sub(1);
        let from = args.get(start..).unwrap_or(&[]);
        let taken = match caps.get(2) {
            Some(length) => {
                let length = length.as_str().parse::<usize>().unwrap_or(usize::MAX);
                &from[..length.min(from.len())]
            }
            None => from,
        };
        taken.join(" ")
    });
    let all = args.join(" ");
    sliced.replace("$ARGUMENTS", &all).replace("$@", &all)
}

/// Expands `/name args` when `name` is a loaded template (Pi's `expandPromptTemplate`); any
/// other text, including an unknown `/name`, comes back unchanged. The name ends at the first
/// space.
pub fn expand_prompt_template(text: &str, templates: &[PromptTemplate]) -> String {
    let Some(rest) = text.strip_prefix('/') else {
        return text.to_string();
    };
    let (name, args) = match rest.find(' ') {
        Some(space) => (&rest[..space], &rest[space + 1..]),
        None => (rest, ""),
    };
    match templates.iter().find(|t| t.name == name) {
        Some(template) => substitute_args(&template.content, &parse_command_args(args)),
        None => text.to_string(),
    }
}
