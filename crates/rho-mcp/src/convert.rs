//! An MCP result as a tool result, as Pi 1.6 converts it (`convertMcpResult`): the content
//! blocks become what the model reads (text, images; audio and unknown kinds as a line of
//! text; resources as their text, image or a saved file), `structuredContent` keeps the whole
//! result for programs (without `_meta`), `isError` makes an error result. Text over 20 KB
//! reaches the model with its middle cut and the whole saved to a private file the result names.

use base64::Engine;
use rho_agent::ToolOutput;
use rho_ai::{ContentBlock, ImageContent};
use serde_json::{Map, Value, json};

/// The most bytes of text one result gives the model.
pub const OUTPUT_MAX_BYTES: usize = 20 * 1024;

/// What a saved file is for, and where to save it.
pub trait Saver: Send + Sync {
    /// Saves `bytes` to a new private file ending in `extension`; its path, or why not.
    fn save(&self, bytes: &[u8], extension: &str) -> Result<String, String>;
}

/// Saves to rho's private output directory (`rho_gate::create_output_file`).
pub struct OutputFiles;

impl Saver for OutputFiles {
    fn save(&self, bytes: &[u8], extension: &str) -> Result<String, String> {
        use std::io::Write;
        let (path, mut file) =
            rho_gate::create_output_file("rho-mcp", extension).map_err(|e| e.to_string())?;
        file.write_all(bytes).map_err(|e| e.to_string())?;
        Ok(path.display().to_string())
    }
}

/// What a conversion needs besides the result.
pub struct Conversion<'a> {
    /// The configured server name.
    pub server: &'a str,
    /// The tool's original MCP name (or the resource tool's name).
    pub tool: &'a str,
    /// Whether the server offers resources (a link then says to read it with
    /// `read_mcp_resource`).
    pub offers_resources: bool,
    /// Where binary blobs and cut outputs go.
    pub saver: &'a dyn Saver,
}

/// The tool result of a `tools/call` result (`result` as the server's JSON).
pub fn call_result(result: Value, conversion: &Conversion<'_>) -> Result<ToolOutput, String> {
    let Value::Object(mut result) = result else {
        return Err("Invalid MCP tools/call result".to_owned());
    };
    match result.get("content") {
        None => {
            result.insert("content".to_owned(), Value::Array(Vec::new()));
        }
        Some(Value::Array(_)) => {}
        Some(_) => return Err("Invalid MCP tools/call result".to_owned()),
    }
    result.remove("_meta");
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let blocks = result
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut content = if blocks.is_empty() {
        match result.get("structuredContent") {
            Some(structured) => vec![ContentBlock::text(
                serde_json::to_string_pretty(structured).unwrap_or_default(),
            )],
            None => Vec::new(),
        }
    } else {
        blocks
            .iter()
            .flat_map(|block| model_content(block, conversion))
            .collect()
    };
    if is_error && text_of(&content).is_empty() {
        content.push(ContentBlock::text(format!(
            "MCP tool {}/{} returned an error",
            conversion.server, conversion.tool
        )));
    }
    let (content, full_output_path) = limit(content, conversion.saver);
    Ok(ToolOutput {
        content,
        details: Some(details(conversion, full_output_path)),
        structured_content: Some(Value::Object(result)),
        is_error: is_error.then_some(true),
        ..ToolOutput::default()
    })
}

/// `{server, tool[, fullOutputPath]}`.
pub fn details(conversion: &Conversion<'_>, full_output_path: Option<String>) -> Value {
    let mut details = Map::new();
    details.insert("server".to_owned(), json!(conversion.server));
    details.insert("tool".to_owned(), json!(conversion.tool));
    if let Some(path) = full_output_path {
        details.insert("fullOutputPath".to_owned(), json!(path));
    }
    Value::Object(details)
}

/// The text of every text block, joined by newlines.
fn text_of(content: &[ContentBlock]) -> String {
    content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// What the model reads for one MCP content block.
pub fn model_content(block: &Value, conversion: &Conversion<'_>) -> Vec<ContentBlock> {
    let str_of =
        |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    match block.get("type").and_then(Value::as_str) {
        Some("text") => vec![ContentBlock::text(
            str_of(block, "text").unwrap_or_default(),
        )],
        Some("image") => vec![image(
            str_of(block, "data").unwrap_or_default(),
            str_of(block, "mimeType").unwrap_or_default(),
        )],
        Some("audio") => vec![ContentBlock::text(format!(
            "[audio {} omitted]",
            str_of(block, "mimeType").unwrap_or_default()
        ))],
        Some("resource_link") => vec![ContentBlock::text(resource_link(block, conversion))],
        Some("resource") => block
            .get("resource")
            .map(|resource| resource_content(resource, conversion))
            .unwrap_or_default(),
        other => vec![ContentBlock::text(format!(
            "[unsupported MCP content {}]",
            other.unwrap_or("undefined")
        ))],
    }
}

/// `[Resource <uri> "<title>" (<mime>, <size>): <description>. Read it with …]`.
fn resource_link(block: &Value, conversion: &Conversion<'_>) -> String {
    let get = |key: &str| block.get(key).and_then(Value::as_str);
    let uri = get("uri").unwrap_or_default();
    let title = get("title").or_else(|| get("name")).unwrap_or_default();
    let mut facts: Vec<String> = Vec::new();
    if let Some(mime) = get("mimeType").filter(|m| !m.is_empty()) {
        facts.push(mime.to_owned());
    }
    if let Some(size) = block.get("size").and_then(Value::as_u64).filter(|s| *s > 0) {
        facts.push(format_size(size));
    }
    let facts = if facts.is_empty() {
        String::new()
    } else {
        format!(" ({})", facts.join(", "))
    };
    let description = get("description")
        .filter(|d| !d.is_empty())
        .map(|d| format!(": {d}"))
        .unwrap_or_default();
    let read = if conversion.offers_resources {
        format!(
            ". Read it with read_mcp_resource (server \"{}\")",
            conversion.server
        )
    } else {
        String::new()
    };
    format!("[Resource {uri} \"{title}\"{facts}{description}{read}]")
}

/// An embedded resource: its text, an image, text decoded from a text-like blob, or a saved
/// file for anything else.
pub fn resource_content(resource: &Value, conversion: &Conversion<'_>) -> Vec<ContentBlock> {
    let get = |key: &str| resource.get(key).and_then(Value::as_str);
    if let Some(text) = get("text") {
        return vec![ContentBlock::text(text)];
    }
    let Some(blob) = get("blob") else {
        return vec![ContentBlock::text(String::new())];
    };
    let mime = get("mimeType");
    if let Some(mime) = mime.filter(|m| m.starts_with("image/")) {
        return vec![image(blob.to_owned(), mime.to_owned())];
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(blob)
        .unwrap_or_default();
    if mime.is_some_and(is_text_like) {
        return vec![ContentBlock::text(String::from_utf8_lossy(&bytes))];
    }
    let uri = get("uri").unwrap_or_default();
    let kind = mime.unwrap_or("unknown type");
    let size = format_size(bytes.len() as u64);
    let text = match conversion.saver.save(&bytes, &extension_of(uri)) {
        Ok(path) => format!("[Binary resource {uri} ({kind}, {size}) saved to {path}]"),
        Err(reason) => {
            format!("[Binary resource {uri} ({kind}, {size}) could not be saved: {reason}]")
        }
    };
    vec![ContentBlock::text(text)]
}

/// An image block.
fn image(data: String, mime_type: String) -> ContentBlock {
    ContentBlock::Image(ImageContent { data, mime_type })
}

/// `text/*`, `application/json`, `*+json`, `*+xml`.
fn is_text_like(mime: &str) -> bool {
    let essence = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence.starts_with("text/")
        || essence == "application/json"
        || essence.ends_with("+json")
        || essence.ends_with("+xml")
}

/// The file extension of a URI's path (`.png`), else `.bin`.
fn extension_of(uri: &str) -> String {
    let path = url::Url::parse(uri)
        .map(|u| u.path().to_owned())
        .unwrap_or_else(|_| uri.to_owned());
    path.rsplit_once('.')
        .map(|(_, ext)| ext)
        .filter(|ext| {
            (1..=8).contains(&ext.len()) && ext.chars().all(|c| c.is_ascii_alphanumeric())
        })
        .map_or_else(|| ".bin".to_owned(), |ext| format!(".{ext}"))
}

/// Pi's `formatSize`: bytes, KB or MB with one decimal.
pub fn format_size(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes}B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1}KB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1}MB", bytes as f64 / (1024.0 * 1024.0))
    }
}

/// Content whose text is at most [`OUTPUT_MAX_BYTES`]; past it, one text block with the head
/// and tail of the joined text and a note naming the file with the whole of it, then the images.
pub fn limit(content: Vec<ContentBlock>, saver: &dyn Saver) -> (Vec<ContentBlock>, Option<String>) {
    let combined = text_of(&content);
    if combined.len() <= OUTPUT_MAX_BYTES {
        return (content, None);
    }
    let head_bytes = OUTPUT_MAX_BYTES / 2;
    let mut head_end = head_bytes;
    while !combined.is_char_boundary(head_end) {
        head_end -= 1;
    }
    let mut tail_start = combined.len() - (OUTPUT_MAX_BYTES - head_bytes);
    while !combined.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    let removed = combined[head_end..tail_start].chars().count();
    let mut lines = combined.split('\n').count();
    if combined.ends_with('\n') {
        lines -= 1;
    }
    let tokens = combined.len().div_ceil(4);
    let cut = format!(
        "{}…{removed} chars truncated…{}",
        &combined[..head_end],
        &combined[tail_start..]
    );
    let (saved, where_) = match saver.save(combined.as_bytes(), ".txt") {
        Ok(path) => (
            Some(path.clone()),
            format!("\n\n[Full output: {path} (read it with offset/limit)]"),
        ),
        Err(reason) => (
            None,
            format!("\n\n[Could not save the full output: {reason}]"),
        ),
    };
    let text = format!(
        "Warning: truncated output (original token count: {tokens})\nTotal output lines: {lines}\n\n{cut}{where_}"
    );
    let mut limited = vec![ContentBlock::text(text)];
    limited.extend(
        content
            .into_iter()
            .filter(|block| matches!(block, ContentBlock::Image(_))),
    );
    (limited, saved)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::Mutex;

    use super::*;

    /// Keeps what it saves in memory and names it `/saved/<n><ext>`.
    #[derive(Default)]
    struct Kept(Mutex<Vec<Vec<u8>>>);

    impl Saver for Kept {
        fn save(&self, bytes: &[u8], extension: &str) -> Result<String, String> {
            let mut kept = self.0.lock().unwrap();
            kept.push(bytes.to_vec());
            Ok(format!("/saved/{}{extension}", kept.len()))
        }
    }

    fn convert(result: Value, saver: &Kept) -> ToolOutput {
        let conversion = Conversion {
            server: "demo",
            tool: "t",
            offers_resources: true,
            saver,
        };
        call_result(result, &conversion).unwrap()
    }

    fn texts(output: &ToolOutput) -> Vec<String> {
        serde_json::to_value(&output.content)
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["text"].as_str().unwrap_or("<image>").to_owned())
            .collect()
    }

    #[test]
    fn blocks_become_what_pi_shows_the_model() {
        let saver = Kept::default();
        let output = convert(
            json!({"content": [
                {"type": "text", "text": "pic"},
                {"type": "image", "data": "iVBO", "mimeType": "image/png"},
                {"type": "audio", "data": "x", "mimeType": "audio/wav"},
                {"type": "resource_link", "uri": "file:///x/a.txt", "name": "a.txt", "mimeType": "text/plain", "size": 2048, "description": "A file"},
                {"type": "resource", "resource": {"uri": "file:///x/data.bin", "blob": "AQID", "mimeType": "application/octet-stream"}},
                {"type": "resource", "resource": {"uri": "file:///x/j.json", "blob": "eyJhIjoxfQ==", "mimeType": "application/json"}},
                {"type": "weird"}
            ], "_meta": {"x": 1}}),
            &saver,
        );
        assert_eq!(
            texts(&output),
            [
                "pic",
                "<image>",
                "[audio audio/wav omitted]",
                "[Resource file:///x/a.txt \"a.txt\" (text/plain, 2.0KB): A file. Read it with read_mcp_resource (server \"demo\")]",
                "[Binary resource file:///x/data.bin (application/octet-stream, 3B) saved to /saved/1.bin]",
                "{\"a\":1}",
                "[unsupported MCP content weird]",
            ]
        );
        assert_eq!(output.details, Some(json!({"server": "demo", "tool": "t"})));
        assert!(output.structured_content.unwrap().get("_meta").is_none());
        assert_eq!(output.is_error, None);
    }

    #[test]
    fn errors_empty_results_and_structured_content_follow_pi() {
        let saver = Kept::default();
        let failed = convert(json!({"content": [], "isError": true}), &saver);
        assert_eq!(texts(&failed), ["MCP tool demo/t returned an error"]);
        assert_eq!(failed.is_error, Some(true));
        let structured = convert(json!({"structuredContent": {"n": 5}}), &saver);
        assert_eq!(texts(&structured), ["{\n  \"n\": 5\n}"]);
        assert_eq!(
            structured.structured_content,
            Some(json!({"structuredContent": {"n": 5}, "content": []}))
        );
        let bad = call_result(
            json!({"content": "x"}),
            &Conversion {
                server: "demo",
                tool: "t",
                offers_resources: false,
                saver: &saver,
            },
        );
        assert_eq!(bad.err().as_deref(), Some("Invalid MCP tools/call result"));
    }

    #[test]
    fn text_past_20_kb_is_cut_in_the_middle_and_saved_whole() {
        let saver = Kept::default();
        let lines: String = (0..600)
            .map(|i| format!("line {i:05} {}\n", "x".repeat(40)))
            .collect();
        let output = convert(
            json!({"content": [{"type": "text", "text": lines}, {"type": "image", "data": "i", "mimeType": "image/png"}]}),
            &saver,
        );
        let text = &texts(&output)[0];
        assert!(text.starts_with("Warning: truncated output (original token count: 7800)\nTotal output lines: 600\n\nline 00000"), "{}", &text[..120]);
        assert!(text.ends_with("\n\n[Full output: /saved/1.txt (read it with offset/limit)]"));
        assert!(text.contains("…10720 chars truncated…"), "{text}");
        assert_eq!(texts(&output).len(), 2);
        assert_eq!(saver.0.lock().unwrap()[0], lines.as_bytes());
        assert_eq!(
            output.details,
            Some(json!({"server": "demo", "tool": "t", "fullOutputPath": "/saved/1.txt"}))
        );
    }
}
