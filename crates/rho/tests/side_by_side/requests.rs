//! The requests the mock received from Pi 1.6 and from rho in one `side_by_side.py` run
//! (`mock-requests.jsonl`), paired per scenario and API in the order sent, and compared whole
//! after normalising only what differs by design or by chance: tool-call ids (random per run,
//! mapped in order of appearance), the session's `prompt_cache_key`, the workspace directory
//! (one per program), bash's full-output file name, the program's name in the prompt's first
//! line, and Pi's `<docs>` section (rho has no documentation block: the contract's §3). Of
//! the headers, those that change what the API does are compared too (`PROTOCOL_HEADERS`);
//! the HTTP clients' own (user agent, SDK telemetry) are not.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

/// The headers that change what the API does.
const PROTOCOL_HEADERS: [&str; 3] = ["content-type", "anthropic-version", "anthropic-beta"];

/// The requests of one scenario over one API, Pi's and rho's, in the order the mock got them.
#[derive(Default)]
struct Pair {
    pi: Vec<Value>,
    rho: Vec<Value>,
}

/// Compares the bodies Pi and rho sent in the run written to `out`; each difference as
/// `scenario/api #n: path: pi … rho …`, and the number of request pairs compared.
pub fn compare(out: &Path) -> (Vec<String>, usize) {
    let log = std::fs::read_to_string(out.join("mock-requests.jsonl")).unwrap();
    let mut pairs: BTreeMap<(String, String), Pair> = BTreeMap::new();
    for line in log.lines() {
        let request: Value = serde_json::from_str(line).unwrap();
        let from_pi = request["headers"]
            .as_object()
            .unwrap()
            .iter()
            .any(|(name, value)| {
                name.eq_ignore_ascii_case("user-agent")
                    && value.as_str().is_some_and(|v| v.starts_with("pi/"))
            });
        let key = (
            request["scenario"].as_str().unwrap().to_owned(),
            request["api"].as_str().unwrap().to_owned(),
        );
        let pair = pairs.entry(key).or_default();
        // Sorted: the order of HTTP headers means nothing.
        let headers: BTreeMap<String, Value> = request["headers"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(name, value)| (name.to_ascii_lowercase(), value.clone()))
            .filter(|(name, _)| PROTOCOL_HEADERS.contains(&name.as_str()))
            .collect();
        let body = serde_json::json!({"headers": headers, "body": request["body"]});
        if from_pi {
            pair.pi.push(body);
        } else {
            pair.rho.push(body);
        }
    }
    let workspaces = format!("{}/ws-", out.display());
    let mut problems = Vec::new();
    let mut compared = 0;
    for ((scenario, api), pair) in pairs {
        if pair.pi.len() != pair.rho.len() {
            problems.push(format!(
                "{scenario}/{api}: Pi sent {} requests, rho {}",
                pair.pi.len(),
                pair.rho.len()
            ));
        }
        for (n, (pi, rho)) in pair.pi.iter().zip(&pair.rho).enumerate() {
            compared += 1;
            let pi = normalise(pi, &workspaces, &mut BTreeMap::new());
            let rho = normalise(rho, &workspaces, &mut BTreeMap::new());
            let mut found = Vec::new();
            diff(&pi, &rho, String::new(), &mut found);
            problems.extend(
                found
                    .into_iter()
                    .map(|d| format!("{scenario}/{api} #{n}: {d}")),
            );
        }
    }
    (problems, compared)
}

fn normalise(value: &Value, workspaces: &str, ids: &mut BTreeMap<String, String>) -> Value {
    match value {
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, value)| {
                    let value = if key == "prompt_cache_key" {
                        Value::String("<session>".to_owned())
                    } else {
                        normalise(value, workspaces, ids)
                    };
                    (key.clone(), value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| normalise(item, workspaces, ids))
                .collect(),
        ),
        Value::String(text) if is_call_id(text) => {
            let next = format!("<id {}>", ids.len());
            Value::String(ids.entry(text.clone()).or_insert(next).clone())
        }
        Value::String(text) => Value::String(normalise_text(text, workspaces)),
        other => other.clone(),
    }
}

/// A tool-call id as the mock makes them: `call_…`, `fc_…`, `toolu_…`, `msg_…` (Responses' message items), or Responses'
/// `call_…|fc_…`.
fn is_call_id(text: &str) -> bool {
    text.split('|').all(|part| {
        ["call_", "fc_", "toolu_", "msg_"].iter().any(|prefix| {
            part.strip_prefix(prefix).is_some_and(|rest| {
                !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
        })
    })
}

fn normalise_text(text: &str, workspaces: &str) -> String {
    let mut text = text.replacen(
        "You are a coding assistant running inside pi,",
        "You are a coding assistant running inside rho,",
        1,
    );
    if let (Some(start), Some(end)) = (text.find("<docs>\n"), text.find("</docs>\n\n")) {
        text.replace_range(start..end + "</docs>\n\n".len(), "");
    }
    let text = replace_runs(&text, workspaces, "<ws>", |c| {
        c.is_ascii_alphanumeric() || c == '_'
    });
    let text = replace_runs(&text, "/tmp/pi-bash-", "<full output>", |c| c != ']');
    // rho's full-output files are in a private directory of its own (`/tmp/rho-<uid>/`).
    replace_runs(&text, "/tmp/rho-", "<full output>", |c| c != ']')
}

/// Replaces each `prefix` and the run of characters after it that `in_run` accepts by `by`.
fn replace_runs(text: &str, prefix: &str, by: &str, in_run: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        out.push_str(&rest[..at]);
        out.push_str(by);
        let after = &rest[at + prefix.len()..];
        let run = after.find(|c| !in_run(c)).unwrap_or(after.len());
        rest = &after[run..];
    }
    out.push_str(rest);
    out
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(160) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// Every path where `pi` and `rho` differ (values, missing keys, key order, lengths).
fn diff(pi: &Value, rho: &Value, path: String, found: &mut Vec<String>) {
    match (pi, rho) {
        (Value::Object(a), Value::Object(b)) => {
            let order_a: Vec<&String> = a.keys().filter(|k| b.contains_key(*k)).collect();
            let order_b: Vec<&String> = b.keys().filter(|k| a.contains_key(*k)).collect();
            if order_a != order_b {
                found.push(format!("{path}: key order pi {order_a:?} rho {order_b:?}"));
            }
            for (key, value) in a {
                match b.get(key) {
                    Some(other) => diff(value, other, format!("{path}.{key}"), found),
                    None => found.push(format!("{path}.{key}: only Pi sends it")),
                }
            }
            for key in b.keys().filter(|k| !a.contains_key(*k)) {
                found.push(format!("{path}.{key}: only rho sends it"));
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                found.push(format!("{path}: pi {} items, rho {}", a.len(), b.len()));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff(x, y, format!("{path}[{i}]"), found);
            }
        }
        _ if pi != rho => found.push(format!("{path}: pi {} rho {}", short(pi), short(rho))),
        _ => {}
    }
}

#[test]
fn a_difference_is_found_and_what_differs_by_design_is_not() {
    let ws = "/out/ws-";
    let pi: Value = serde_json::json!({
        "messages": [{"content": "You are a coding assistant running inside pi, a harness.\n\n<docs>\nPi docs\n</docs>\n\n<cwd>\n/out/ws-ab12\n</cwd>"},
                     {"tool_call_id": "call_aa11", "content": "x [Full output: /tmp/pi-bash-1f.log]"}],
        "prompt_cache_key": "p1", "stream": true
    });
    let rho: Value = serde_json::json!({
        "messages": [{"content": "You are a coding assistant running inside rho, a harness.\n\n<cwd>\n/out/ws-cd34\n</cwd>"},
                     {"tool_call_id": "call_bb22", "content": "x [Full output: /tmp/rho-0/rho-bash-9e.log]"}],
        "prompt_cache_key": "r2", "stream": true
    });
    let mut found = Vec::new();
    let normal = |v: &Value| normalise(v, ws, &mut BTreeMap::new());
    diff(&normal(&pi), &normal(&rho), String::new(), &mut found);
    assert_eq!(found, Vec::<String>::new());
    let mut changed = rho.clone();
    changed["stream"] = Value::Bool(false);
    diff(&normal(&pi), &normal(&changed), String::new(), &mut found);
    assert_eq!(found, [".stream: pi true rho false"]);
}
