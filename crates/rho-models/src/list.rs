//! The `--list-models [search]` output, in Pi's layout (pi-coding-agent `cli/list-models.js`).

use rho_stdx::js::{number_text, to_fixed};

use crate::catalog::ModelEntry;
use crate::collate::locale_compare;

/// What `--list-models` prints when no model is available.
pub fn no_models_available_message() -> String {
    "No models available. Set a provider API key (environment variable, auth.json or --api-key) \
     or add models to models.json."
        .to_owned()
}

/// The model table: the models matching `search` (every whitespace-separated token must match
/// `"<provider> <id>"` as a fuzzy subsequence), sorted by provider then id, in left-aligned
/// columns `provider model context max-out thinking images` separated by two spaces; every line
/// ends in `\n`. Pass the *available* models, as Pi does.
///
/// With no models: [`no_models_available_message`]; with none matching:
/// `No models matching "<search>"`.
pub fn format_model_list<'a>(
    models: impl IntoIterator<Item = &'a ModelEntry>,
    search: Option<&str>,
) -> String {
    let models: Vec<&ModelEntry> = models.into_iter().collect();
    if models.is_empty() {
        return format!("{}\n", no_models_available_message());
    }
    let mut shown: Vec<&ModelEntry> = match search {
        Some(query) if !query.trim().is_empty() => {
            let tokens: Vec<&str> = query.split_whitespace().collect();
            models
                .into_iter()
                .filter(|entry| {
                    let text = format!("{} {}", entry.model.provider, entry.model.id);
                    tokens.iter().all(|token| fuzzy_matches(token, &text))
                })
                .collect()
        }
        _ => models,
    };
    if shown.is_empty() {
        return format!("No models matching \"{}\"\n", search.unwrap_or_default());
    }
    shown.sort_by(|a, b| {
        locale_compare(&a.model.provider, &b.model.provider)
            .then_with(|| locale_compare(&a.model.id, &b.model.id))
    });
    let header = [
        "provider", "model", "context", "max-out", "thinking", "images",
    ]
    .map(str::to_owned);
    let rows: Vec<[String; 6]> = shown
        .iter()
        .map(|entry| {
            let model = &entry.model;
            let yes_no = |flag: bool| if flag { "yes" } else { "no" }.to_owned();
            [
                model.provider.clone(),
                model.id.clone(),
                format_token_count(model.context_window),
                format_token_count(model.max_tokens),
                yes_no(model.reasoning),
                yes_no(model.input.iter().any(|kind| kind == "image")),
            ]
        })
        .collect();
    let mut widths = [0usize; 6];
    for row in std::iter::once(&header).chain(&rows) {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        out.push_str(&cells.join("  "));
        out.push('\n');
    }
    out
}

/// `200000` → `200K`, `1048576` → `1M`, `131072` → `131.1K` (Pi's `formatTokenCount`).
fn format_token_count(count: u64) -> String {
    let scaled = |unit: f64, suffix: &str| {
        let value = count as f64 / unit;
        if value.fract() == 0.0 {
            format!("{}{suffix}", number_text(value))
        } else {
            format!("{}{suffix}", to_fixed(value, 1))
        }
    };
    if count >= 1_000_000 {
        scaled(1_000_000.0, "M")
    } else if count >= 1_000 {
        scaled(1_000.0, "K")
    } else {
        count.to_string()
    }
}

/// pi-tui's `fuzzyMatch`, match or not: the query's characters appear in order in the text
/// (case-insensitive); a query of letters then digits (or digits then letters) also matches with
/// the two parts swapped.
fn fuzzy_matches(query: &str, text: &str) -> bool {
    let query = query.to_lowercase();
    let text = text.to_lowercase();
    if is_subsequence(&query, &text) {
        return true;
    }
    let split = query
        .find(|ch: char| ch.is_ascii_digit() != query.starts_with(|c: char| c.is_ascii_digit()))
        .unwrap_or(query.len());
    let (head, tail) = query.split_at(split);
    let letters = |part: &str| !part.is_empty() && part.chars().all(|ch| ch.is_ascii_lowercase());
    let digits = |part: &str| !part.is_empty() && part.chars().all(|ch| ch.is_ascii_digit());
    let swappable = (letters(head) && digits(tail)) || (digits(head) && letters(tail));
    swappable && is_subsequence(&format!("{tail}{head}"), &text)
}

fn is_subsequence(query: &str, text: &str) -> bool {
    let mut wanted = query.chars().peekable();
    for ch in text.chars() {
        if wanted.peek() == Some(&ch) {
            wanted.next();
        }
    }
    wanted.peek().is_none()
}
