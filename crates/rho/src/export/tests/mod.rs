//! The HTML export: whole renders, escaping of hostile content, every message kind; the files
//! `--export` reads and writes are in `files.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod files;

use std::path::Path;

use rho_agent::AgentMessage;
use rho_tui::view::summary::thousands;
use serde_json::{Value, json};

use super::html::{STYLE, render_body};

use super::text::{format_tokens, strip_ansi};
use super::{ExportHeader, default_output_name, render_html};

/// 2026-01-01T00:00:00Z.
const T0: i64 = 1_767_225_600_000;
/// A 1×1 transparent PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn header() -> ExportHeader {
    ExportHeader {
        id: "0191-abc".to_owned(),
        timestamp: "2026-01-01T00:00:00.000Z".to_owned(),
        cwd: "/home/u/project".to_owned(),
        parent_session: None,
    }
}

fn msg(value: Value) -> AgentMessage {
    serde_json::from_value(value).unwrap()
}

fn user(text: &str) -> AgentMessage {
    msg(json!({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": T0}))
}

fn assistant(content: Value, stop_reason: &str) -> AgentMessage {
    msg(json!({
        "role": "assistant", "content": content, "api": "faux", "provider": "faux", "model": "m1",
        "usage": {"input": 1200, "output": 34, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1234,
                  "cost": {"input": 0.01, "output": 0.002, "cacheRead": 0, "cacheWrite": 0, "total": 0.012}},
        "stopReason": stop_reason, "timestamp": T0 + 1000
    }))
}

fn tool_result(id: &str, name: &str, content: Value, is_error: bool) -> AgentMessage {
    msg(json!({
        "role": "toolResult", "toolCallId": id, "toolName": name, "content": content,
        "isError": is_error, "timestamp": T0 + 2000
    }))
}

fn text(t: &str) -> Value {
    json!([{"type": "text", "text": t}])
}

/// One of each kind of message the page knows.
fn every_kind() -> Vec<AgentMessage> {
    vec![
        msg(
            json!({"role": "compactionSummary", "summary": "Earlier we set up the repo.", "tokensBefore": 123456, "timestamp": T0}),
        ),
        user("Please list the files"),
        msg(
            json!({"role": "user", "content": [{"type": "text", "text": "and look at this"}, {"type": "image", "data": PNG, "mimeType": "image/png"}], "timestamp": T0}),
        ),
        assistant(
            json!([
                {"type": "thinking", "thinking": "The user wants a listing."},
                {"type": "text", "text": "Listing now."},
                {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls -a"}},
                {"type": "toolCall", "id": "c2", "name": "read", "arguments": {"path": "missing.txt"}}
            ]),
            "toolUse",
        ),
        tool_result("c1", "bash", text("Cargo.toml\nsrc"), false),
        tool_result("c2", "read", text("ENOENT: missing.txt"), true),
        msg(
            json!({"role": "bashExecution", "command": "git status", "output": "nothing to commit", "exitCode": 1, "cancelled": false, "truncated": false, "timestamp": T0}),
        ),
        msg(
            json!({"role": "branchSummary", "summary": "Tried another approach.", "fromId": "e1", "timestamp": T0}),
        ),
        msg(
            json!({"role": "custom", "customType": "note", "content": "A visible note", "display": true, "timestamp": T0}),
        ),
        msg(
            json!({"role": "custom", "customType": "secret", "content": "A hidden note", "display": false, "timestamp": T0}),
        ),
        assistant(text(""), "error"),
    ]
}

#[test]
fn an_empty_session_renders_as_this_whole_document() {
    let html = render_html(&header(), None, &[]);
    let expected = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">\n\
         <title>Session 0191-abc</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
         <header class=\"session\">\n<h1>Session 0191-abc</h1>\n<dl>\n\
         <dt>Session</dt><dd>0191-abc</dd>\n\
         <dt>Date</dt><dd>2026-01-01T00:00:00.000Z</dd>\n\
         <dt>Directory</dt><dd>/home/u/project</dd>\n\
         <dt>Models</dt><dd>unknown</dd>\n\
         <dt>Messages</dt><dd>0</dd>\n\
         <dt>Tool calls</dt><dd>0</dd>\n\
         <dt>Tokens</dt><dd>0</dd>\n\
         <dt>Cost</dt><dd>$0.000</dd>\n\
         </dl>\n</header>\n<main>\n</main>\n<footer>Exported by rho {}</footer>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(html, expected);
}

#[test]
fn a_small_session_renders_as_this_exact_body() {
    let messages = vec![
        user("Run it"),
        assistant(
            json!([
                {"type": "thinking", "thinking": "ok"},
                {"type": "text", "text": "Running."},
                {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "echo hi"}}
            ]),
            "toolUse",
        ),
        tool_result("c1", "bash", text("hi\n"), false),
    ];
    let body = render_body(&header(), "Demo", &messages);
    let expected = format!(
        "<header class=\"session\">\n<h1>Demo</h1>\n<dl>\n\
         <dt>Session</dt><dd>0191-abc</dd>\n\
         <dt>Date</dt><dd>2026-01-01T00:00:00.000Z</dd>\n\
         <dt>Directory</dt><dd>/home/u/project</dd>\n\
         <dt>Models</dt><dd>faux/m1</dd>\n\
         <dt>Messages</dt><dd>1 user, 1 assistant, 1 tool results</dd>\n\
         <dt>Tool calls</dt><dd>1</dd>\n\
         <dt>Tokens</dt><dd>↑1.2k ↓34</dd>\n\
         <dt>Cost</dt><dd>$0.012</dd>\n\
         </dl>\n</header>\n<main>\n\
         <section class=\"message user\"><div class=\"meta\"><span class=\"role\">User</span>\
         <time datetime=\"2026-01-01T00:00:00.000Z\">2026-01-01 00:00:00 UTC</time></div>\
         <div class=\"text\">Run it</div></section>\n\
         <section class=\"message assistant\"><div class=\"meta\"><span class=\"role\">Assistant</span>\
         <span class=\"model\">faux/m1</span>\
         <time datetime=\"2026-01-01T00:00:01.000Z\">2026-01-01 00:00:01 UTC</time></div>\
         <details class=\"thinking\" open><summary>Thinking</summary><div class=\"text\">ok</div></details>\
         <div class=\"text\">Running.</div>\
         <div class=\"tool ok\"><div class=\"tool-head\"><span class=\"command\">$ echo hi</span></div>\
         <pre class=\"output\">hi</pre></div></section>\n\
         </main>\n<footer>Exported by rho {}</footer>\n",
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(body, expected);
}

#[test]
fn every_message_kind_shows_its_content() {
    let html = render_html(&header(), Some("Kinds"), &every_kind());
    for shown in [
        "<title>Kinds</title>",
        "Compacted from 123,456 tokens</summary><div class=\"text\">Earlier we set up the repo.</div>",
        "<div class=\"text\">Please list the files</div>",
        "<div class=\"text\">and look at this</div>",
        &format!("<img class=\"image\" alt=\"image/png\" src=\"data:image/png;base64,{PNG}\">"),
        "<summary>Thinking</summary><div class=\"text\">The user wants a listing.</div>",
        "<div class=\"text\">Listing now.</div>",
        "<div class=\"tool ok\"><div class=\"tool-head\"><span class=\"command\">$ ls -a</span></div><pre class=\"output\">Cargo.toml\nsrc</pre></div>",
        "<div class=\"tool error\"><div class=\"tool-head\"><span class=\"tool-name\">read</span> <span class=\"tool-path\">missing.txt</span></div><pre class=\"output\">ENOENT: missing.txt</pre></div>",
        "<div class=\"tool error\"><div class=\"tool-head\"><span class=\"command\">$ git status</span></div><pre class=\"output\">nothing to commit</pre><div class=\"status error\">(exit 1)</div></div>",
        "<span class=\"role\">Branch summary</span>",
        "<div class=\"text\">Tried another approach.</div>",
        "<span class=\"role\">[note]</span>",
        "<div class=\"text\">A visible note</div>",
        "<div class=\"error-text\">Error: Unknown error</div>",
        "<dt>Messages</dt><dd>2 user, 2 assistant, 2 tool results, 2 custom, 1 compactions, 1 branch summaries</dd>",
        "<dt>Tool calls</dt><dd>2</dd>",
    ] {
        assert!(html.contains(shown), "missing {shown:?} in\n{html}");
    }
    assert!(!html.contains("A hidden note"));
    // Each tool result is shown once, inside its call, not again on its own.
    assert_eq!(html.matches("Cargo.toml\nsrc").count(), 1);
}

const HOSTILE: &str =
    "</script><script>alert(1)</script></textarea>\"'><img src=x onerror=alert(2)>&amp;";
const HOSTILE_ESCAPED: &str = "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;/textarea&gt;&quot;&#39;&gt;&lt;img src=x onerror=alert(2)&gt;&amp;amp;";

#[test]
fn hostile_text_is_escaped_wherever_it_appears() {
    let h = HOSTILE;
    let messages = vec![
        user(h),
        assistant(
            json!([
                {"type": "thinking", "thinking": h},
                {"type": "text", "text": h},
                {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": h}},
                {"type": "toolCall", "id": "c2", "name": h, "arguments": {"x": h}},
                {"type": "toolCall", "id": "c3", "name": "write", "arguments": {"path": h, "content": h}},
                {"type": "toolCall", "id": "c4", "name": "edit", "arguments": {"path": h}}
            ]),
            "error",
        ),
        tool_result("c1", "bash", text(h), false),
        tool_result(
            "c2",
            h,
            json!([{"type": "image", "data": PNG, "mimeType": h}]),
            true,
        ),
        msg(
            json!({"role": "toolResult", "toolCallId": "c4", "toolName": "edit", "content": text("ok"),
                   "details": {"diff": h}, "isError": false, "timestamp": T0}),
        ),
        tool_result("orphan", h, text(h), false),
        msg(
            json!({"role": "bashExecution", "command": h, "output": h, "exitCode": 0, "cancelled": false,
                   "truncated": true, "fullOutputPath": h, "timestamp": T0}),
        ),
        msg(json!({"role": "compactionSummary", "summary": h, "tokensBefore": 1, "timestamp": T0})),
        msg(json!({"role": "branchSummary", "summary": h, "fromId": "x", "timestamp": T0})),
        msg(
            json!({"role": "custom", "customType": h, "content": h, "display": true, "timestamp": T0}),
        ),
        msg(json!({"role": h, "field": h, "timestamp": T0})),
    ];
    let mut hostile_header = header();
    hostile_header.cwd = h.to_owned();
    hostile_header.parent_session = Some(h.to_owned());
    let html = render_html(&hostile_header, Some(h), &messages);

    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("</textarea>"), "{html}");
    assert!(!html.contains("<img src=x"), "{html}");
    // Title, h1, cwd, parent; user, thinking, text; bash command and output; the unknown
    // tool's name and its image's type; write path and content; edit path and diff; the orphan
    // result's tool name and output; bashExecution command, output and path; both summaries;
    // custom type and content; the unknown role. (Inside JSON the quote is `\"`, so argument
    // dumps are not counted here; the `<script` check above covers them.)
    assert_eq!(html.matches(HOSTILE_ESCAPED).count(), 25, "{html}");
    // The image with a made-up type is named, not embedded.
    assert!(!html.contains("data:&lt;"));
    assert_eq!(html.matches("<img").count(), 0);
}

#[test]
fn an_image_with_a_type_other_than_image_is_named_not_embedded() {
    let html = render_html(
        &header(),
        None,
        &[msg(
            json!({"role": "user", "content": [{"type": "image", "data": "PGgxPg==", "mimeType": "text/html"}], "timestamp": T0}),
        )],
    );
    assert!(html.contains("<div class=\"image-invalid\">[image: text/html]</div>"));
    assert!(!html.contains("data:text/html"));
}

#[test]
fn long_output_shows_ten_lines_and_folds_the_rest() {
    let output: Vec<String> = (1..=13).map(|i| format!("line {i}")).collect();
    let messages = vec![
        assistant(
            json!([{"type": "toolCall", "id": "c1", "name": "grep", "arguments": {}}]),
            "toolUse",
        ),
        tool_result("c1", "grep", text(&output.join("\n")), false),
    ];
    let html = render_html(&header(), None, &messages);
    let expected = format!(
        "<div class=\"tool ok\"><div class=\"tool-head\"><span class=\"tool-name\">grep</span></div>\
         <pre class=\"output\">{}</pre><details class=\"more\"><summary>3 more lines</summary>\
         <pre class=\"output\">line 11\nline 12\nline 13</pre></details></div>",
        output[..10].join("\n")
    );
    assert!(html.contains(&expected), "{html}");
}

#[test]
fn a_call_without_a_result_is_pending_and_shows_its_arguments() {
    let messages = vec![assistant(
        json!([{"type": "toolCall", "id": "c1", "name": "find", "arguments": {"pattern": "*.rs"}}]),
        "aborted",
    )];
    let html = render_html(&header(), None, &messages);
    assert!(html.contains(
        "<div class=\"tool pending\"><div class=\"tool-head\"><span class=\"tool-name\">find</span></div>\
         <pre class=\"args\">{\n  &quot;pattern&quot;: &quot;*.rs&quot;\n}</pre></div>\
         <div class=\"error-text\">Aborted</div>"
    ), "{html}");
}

#[test]
fn terminal_colour_codes_are_removed() {
    assert_eq!(
        strip_ansi("\u{1b}[1;31mred\u{1b}[0m \u{1b}]0;title\u{7}x\u{1b}7y"),
        "red xy"
    );
}

#[test]
fn numbers_are_written_as_pis_export_writes_them() {
    let tokens: Vec<String> = [0, 999, 1000, 1250, 9999, 10_000, 123_456, 1_500_000]
        .into_iter()
        .map(format_tokens)
        .collect();
    assert_eq!(
        tokens,
        ["0", "999", "1.0k", "1.2k", "10.0k", "10k", "123k", "1.5M"]
    );
    let grouped: Vec<String> = [0, 999, 1000, 123_456, 1_234_567]
        .into_iter()
        .map(thousands)
        .collect();
    assert_eq!(grouped, ["0", "999", "1,000", "123,456", "1,234,567"]);
}

#[test]
fn the_default_output_name_drops_only_a_jsonl_extension() {
    let names: Vec<String> = ["/s/2026_abc.jsonl", "x.json", ".jsonl", "a.jsonl.bak"]
        .into_iter()
        .map(|p| default_output_name(Path::new(p)))
        .collect();
    assert_eq!(
        names,
        [
            "rho-session-2026_abc.html",
            "rho-session-x.json.html",
            "rho-session-.jsonl.html",
            "rho-session-a.jsonl.bak.html"
        ]
    );
}
