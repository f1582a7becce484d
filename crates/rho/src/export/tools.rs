//! One tool call and its result, shown together as Pi's export shows them: the call's key
//! argument as a heading, the result's images and text below, coloured by outcome.

use rho_ai::{ContentBlock, ImageContent, ToolCall, ToolResultMessage};
use serde_json::Value;

use super::text::{PREVIEW_LINES, escape, output_block};

/// A tool call with its result (`None` while no result exists: the run stopped first).
pub fn tool_call(call: &ToolCall, result: Option<&ToolResultMessage>) -> String {
    let status = match result {
        None => "pending",
        Some(r) if r.is_error => "error",
        Some(_) => "ok",
    };
    let args = &call.arguments;
    let mut html = format!("<div class=\"tool {status}\">");
    match call.name.as_str() {
        "bash" => {
            html.push_str(&format!(
                "<div class=\"tool-head\"><span class=\"command\">$ {}</span></div>",
                string_arg(args, &["command"])
            ));
            html.push_str(&result_body(result));
        }
        "read" => {
            let mut path = string_arg(args, &["path", "file_path"]);
            let offset = args.get("offset").and_then(Value::as_u64);
            let limit = args.get("limit").and_then(Value::as_u64);
            if offset.is_some() || limit.is_some() {
                let start = offset.unwrap_or(1);
                let end = limit.map(|l| (start + l).saturating_sub(1).to_string());
                path.push_str(&format!(
                    "<span class=\"lines\">:{start}{}</span>",
                    end.map(|e| format!("-{e}")).unwrap_or_default()
                ));
            }
            html.push_str(&head("read", &path));
            html.push_str(&result_body(result));
        }
        "write" => {
            html.push_str(&head("write", &string_arg(args, &["path", "file_path"])));
            match args.get("content") {
                Some(Value::String(content)) if !content.is_empty() => {
                    html.push_str(&output_block(content, PREVIEW_LINES));
                }
                Some(Value::String(_)) => {}
                _ => html.push_str(INVALID_ARG),
            }
            html.push_str(&result_body(result));
        }
        "edit" => {
            html.push_str(&head("edit", &string_arg(args, &["path", "file_path"])));
            let diff = result
                .and_then(|r| r.details.as_ref())
                .and_then(|d| d.get("diff"))
                .and_then(Value::as_str);
            match diff {
                Some(diff) if !result.is_some_and(|r| r.is_error) => {
                    html.push_str(&diff_block(diff))
                }
                _ => html.push_str(&result_body(result)),
            }
        }
        "ls" => {
            let path = match args.get("path") {
                None => ".".to_owned(),
                Some(_) => string_arg(args, &["path"]),
            };
            html.push_str(&head("ls", &path));
            html.push_str(&result_body(result));
        }
        name => {
            html.push_str(&head(name, ""));
            if args.as_object().is_none_or(|o| !o.is_empty()) {
                let pretty = serde_json::to_string_pretty(args).unwrap_or_default();
                html.push_str(&format!("<pre class=\"args\">{}</pre>", escape(&pretty)));
            }
            html.push_str(&result_body(result));
        }
    }
    html.push_str("</div>");
    html
}

/// A tool result whose call is not in the transcript (cut off by compaction, for example).
pub fn orphan_result(result: &ToolResultMessage) -> String {
    let status = if result.is_error { "error" } else { "ok" };
    format!(
        "<div class=\"tool {status}\">{}{}</div>",
        head(&result.tool_name, "result"),
        result_body(Some(result))
    )
}

/// An image as an inline `data:` URL. Only `image/*` types with plain names and base64 text
/// pass: anything else could smuggle another document type into the page, so it is named,
/// not shown.
pub fn image(img: &ImageContent) -> String {
    let mime_ok = img.mime_type.strip_prefix("image/").is_some_and(|sub| {
        !sub.is_empty()
            && sub
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    });
    let data_ok = img
        .data
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"+/=\r\n".contains(&b));
    if mime_ok && data_ok {
        format!(
            "<img class=\"image\" alt=\"{0}\" src=\"data:{0};base64,{1}\">",
            escape(&img.mime_type),
            escape(&img.data)
        )
    } else {
        format!(
            "<div class=\"image-invalid\">[image: {}]</div>",
            escape(&img.mime_type)
        )
    }
}

const INVALID_ARG: &str = "<span class=\"invalid\">[invalid arg]</span>";

fn head(name: &str, detail_html: &str) -> String {
    let detail = if detail_html.is_empty() {
        String::new()
    } else {
        format!(" <span class=\"tool-path\">{detail_html}</span>")
    };
    format!(
        "<div class=\"tool-head\"><span class=\"tool-name\">{}</span>{detail}</div>",
        escape(name)
    )
}

/// The first of `keys` present, escaped; a non-string value is marked invalid, as Pi marks it.
fn string_arg(args: &Value, keys: &[&str]) -> String {
    match keys.iter().find_map(|k| args.get(*k)) {
        Some(Value::String(s)) => escape(s),
        None => String::new(),
        Some(_) => INVALID_ARG.to_owned(),
    }
}

/// The result's images, then its text blocks joined by newlines.
fn result_body(result: Option<&ToolResultMessage>) -> String {
    let Some(result) = result else {
        return String::new();
    };
    let mut html = String::new();
    let images: Vec<&ImageContent> = result
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Image(img) => Some(img),
            _ => None,
        })
        .collect();
    if !images.is_empty() {
        html.push_str("<div class=\"images\">");
        for img in images {
            html.push_str(&image(img));
        }
        html.push_str("</div>");
    }
    let text = result
        .content
        .iter()
        .filter_map(ContentBlock::as_text)
        .collect::<Vec<_>>()
        .join("\n");
    let text = text.trim();
    if !text.is_empty() {
        html.push_str(&output_block(text, PREVIEW_LINES));
    }
    html
}

/// An edit's diff, each line coloured by its sign.
fn diff_block(diff: &str) -> String {
    let mut html = String::from("<pre class=\"diff\">");
    for line in diff.split('\n') {
        let class = match line.as_bytes().first() {
            Some(b'+') => "added",
            Some(b'-') => "removed",
            _ => "context",
        };
        html.push_str(&format!(
            "<span class=\"{class}\">{}</span>\n",
            escape(line)
        ));
    }
    html.push_str("</pre>");
    html
}
