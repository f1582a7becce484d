//! BM25 over tool metadata, as Pi 1.6's `tool_search` ranks (`extensions/tool-search/tool.js`):
//! a tool's name weighs 3, its namespace (an MCP server's name, description and instructions)
//! 0.5, its description and schema text by term frequency; a query naming every word of a
//! tool's own name gets a bonus; an exact name comes first, then the tools covering more query
//! terms, then the score.

use serde_json::Value;

const K1: f64 = 1.2;
const B: f64 = 0.75;
const NAME_WEIGHT: f64 = 3.0;
const NAMESPACE_WEIGHT: f64 = 0.5;

const STOP_WORDS: [&str; 22] = [
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "of", "on",
    "or", "that", "the", "this", "to", "with", "",
];

/// One searchable tool.
pub struct Document<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its description.
    pub description: &'a str,
    /// Its parameters schema.
    pub parameters: &'a Value,
    /// Its namespace text (name, description, instructions), if any.
    pub namespace: String,
}

/// The indices of `documents` that match `query`, best first, at most `limit`.
pub fn rank(documents: &[Document<'_>], query: &str, limit: usize) -> Vec<usize> {
    let mut terms = tokenize(query);
    terms.sort();
    terms.dedup();
    let texts: Vec<Vec<String>> = documents
        .iter()
        .map(|doc| {
            let mut text = doc.description.to_owned();
            let schema = schema_text(doc.parameters);
            if !schema.is_empty() {
                text.push(' ');
                text.push_str(&schema);
            }
            tokenize(&text)
        })
        .collect();
    let names: Vec<Vec<String>> = documents.iter().map(|d| tokenize(d.name)).collect();
    let spaces: Vec<Vec<String>> = documents.iter().map(|d| tokenize(&d.namespace)).collect();
    let count = documents.len() as f64;
    let total: usize = texts.iter().map(Vec::len).sum();
    let average = if total == 0 {
        1.0
    } else {
        total as f64 / count
    };
    let idf = |term: &String| {
        let df = (0..documents.len())
            .filter(|&i| {
                names[i].contains(term) || texts[i].contains(term) || spaces[i].contains(term)
            })
            .count() as f64;
        (1.0 + (count - df + 0.5) / (df + 0.5)).ln()
    };
    let idfs: Vec<f64> = terms.iter().map(idf).collect();
    let normalized_query = normalize(query);
    let mut scored: Vec<(usize, bool, usize, f64)> = Vec::new();
    for i in 0..documents.len() {
        let norm = K1 * (1.0 - B + B * texts[i].len() as f64 / average);
        let mut score = 0.0;
        let mut covered = 0;
        for (term, idf) in terms.iter().zip(&idfs) {
            let frequency = texts[i].iter().filter(|t| *t == term).count() as f64;
            let mut weight = frequency * (K1 + 1.0) / (frequency + norm);
            if names[i].contains(term) {
                weight += NAME_WEIGHT;
            }
            if spaces[i].contains(term) {
                weight += NAMESPACE_WEIGHT;
            }
            if weight > 0.0 {
                covered += 1;
            }
            score += idf * weight;
        }
        if score == 0.0 {
            continue;
        }
        let local = tokenize(documents[i].name.rsplit("__").next().unwrap_or(""));
        if !local.is_empty() && local.iter().all(|t| terms.contains(t)) {
            score += local
                .iter()
                .filter_map(|t| terms.iter().position(|q| q == t).map(|p| idfs[p]))
                .sum::<f64>();
        }
        let name = normalize(documents[i].name);
        let exact = name == normalized_query || name.ends_with(&format!("__{normalized_query}"));
        scored.push((i, exact, covered, score));
    }
    // Stable: registration order breaks ties.
    scored.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then(b.2.cmp(&a.2))
            .then(b.3.partial_cmp(&a.3).unwrap_or(std::cmp::Ordering::Equal))
    });
    scored.into_iter().take(limit).map(|(i, ..)| i).collect()
}

/// `trim().toLowerCase().replace(/[^a-z0-9_$]/g, "_")`.
fn normalize(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '$' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Every description and property name in a schema (following `items`, `anyOf`, `oneOf`,
/// `allOf` and local `$ref`s, each target once).
fn schema_text(schema: &Value) -> String {
    let mut parts = Vec::new();
    let mut seen_refs: Vec<String> = Vec::new();
    collect(schema, schema, &mut parts, &mut seen_refs, 0);
    parts.join(" ")
}

fn collect(
    root: &Value,
    node: &Value,
    parts: &mut Vec<String>,
    refs: &mut Vec<String>,
    depth: usize,
) {
    if depth > 32 {
        return;
    }
    if let Some(description) = node.get("description").and_then(Value::as_str)
        && !description.trim().is_empty()
    {
        parts.push(description.to_owned());
    }
    if let Some(properties) = node.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            parts.push(name.clone());
            collect(root, property, parts, refs, depth + 1);
        }
    }
    if let Some(items) = node.get("items") {
        collect(root, items, parts, refs, depth + 1);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for sub in node
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            collect(root, sub, parts, refs, depth + 1);
        }
    }
    if let Some(reference) = node.get("$ref").and_then(Value::as_str)
        && let Some(pointer) = reference.strip_prefix('#')
        && !refs.iter().any(|r| r == reference)
    {
        refs.push(reference.to_owned());
        if let Some(target) = root.pointer(pointer) {
            collect(root, target, parts, refs, depth + 1);
        }
    }
}

/// Pi's tokenizer: camelCase split, lower case, non-alphanumerics as spaces, stop words out,
/// light stemming of ASCII words.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut split = String::with_capacity(text.len() + 8);
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if i > 0 && c.is_uppercase() {
            let previous = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if previous.is_lowercase()
                || previous.is_ascii_digit()
                || (previous.is_uppercase() && next_lower)
            {
                split.push(' ');
            }
        }
        split.push(c);
    }
    let lowered: String = split
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    lowered
        .split_whitespace()
        .filter(|word| !STOP_WORDS.contains(word))
        .map(stem)
        .collect()
}

fn stem(word: &str) -> String {
    let ascii = word
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    if !ascii {
        return word.to_owned();
    }
    let len = word.len();
    if len > 4 && word.ends_with("ies") {
        return format!("{}y", &word[..len - 3]);
    }
    if len > 4
        && ["ches", "shes", "sses", "xes", "zes"]
            .iter()
            .any(|s| word.ends_with(s))
    {
        return word[..len - 2].to_owned();
    }
    if len > 3 && word.ends_with('s') && !word.ends_with("ss") {
        return word[..len - 1].to_owned();
    }
    word.to_owned()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn words_are_split_lowered_stemmed_and_stop_words_dropped() {
        assert_eq!(
            tokenize("readFile the HTTPServer queries boxes classes"),
            ["read", "file", "http", "server", "query", "box", "class"]
        );
        assert_eq!(
            tokenize("mcp__demo__echo_text"),
            ["mcp", "demo", "echo", "text"]
        );
    }

    #[test]
    fn the_exact_tool_and_the_best_match_come_first() {
        let empty = json!({"type": "object", "properties": {}});
        let text_schema = json!({"type": "object", "properties": {"text": {"type": "string", "description": "Text to echo"}}});
        let docs = [
            Document {
                name: "mcp__demo__add",
                description: "Add two numbers.",
                parameters: &empty,
                namespace: "mcp__demo".into(),
            },
            Document {
                name: "mcp__demo__echo",
                description: "Echo the given text back.",
                parameters: &text_schema,
                namespace: "mcp__demo".into(),
            },
            Document {
                name: "mcp__other__print",
                description: "Print text.",
                parameters: &empty,
                namespace: "mcp__other".into(),
            },
        ];
        assert_eq!(rank(&docs, "echo", 8), [1]);
        assert_eq!(rank(&docs, "text", 8)[0], 1);
        assert_eq!(rank(&docs, "add", 1), [0]);
        assert!(rank(&docs, "nothing-here", 8).is_empty());
        // Every tool of the namespace matches its name.
        assert_eq!(rank(&docs, "demo", 8).len(), 2);
    }
}
