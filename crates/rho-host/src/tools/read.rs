//! The `read` tool (pi-reference §6.1): a file's text, truncated with continuation notices, or
//! an image (JPEG/PNG/GIF/WebP, told by its magic bytes) as an attachment (see [`super::image`]).

use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use rho_agent::{AgentTool, ToolContext, ToolError, ToolOutput, ToolUpdates};
use rho_ai::{ContentBlock, Model};
use rho_gate::{GatePolicy, GuardedOpenError};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::image::{ImageMime, ImageOptions, SNIFF_BYTES, detect_image_mime, image_output};
use super::path::resolve_read_path;
use super::read_lines::{SelectError, Selection, select_lines};
use super::truncate::{
    DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncatedBy, Truncation, format_size, truncate_head,
};

/// The tool's name.
const NAME: &str = "read";

/// The description sent to the model (Pi 0.73.1, verbatim).
const DESCRIPTION: &str = "Read the contents of a file. Supports text files and images (jpg, png, gif, webp, bmp). Images are sent as attachments. For text files, output is truncated to 2000 lines or 50KB (whichever is hit first). Use offset/limit for large files. When you need the full file, continue with offset until complete.";

/// The error text of an aborted call.
const ABORTED: &str = "Operation aborted";

/// Reads files relative to a session's working directory.
pub struct ReadTool {
    cwd: PathBuf,
    schema: Value,
    images: ImageOptions,
    gate: Option<Arc<GatePolicy>>,
}

/// Validated arguments of one call.
struct ReadArgs<'a> {
    /// The path exactly as the model gave it.
    path: &'a str,
    /// 1-indexed start line, floored.
    offset: Option<i64>,
    /// Maximum number of lines, floored.
    limit: Option<i64>,
}

impl ReadTool {
    /// A `read` tool resolving relative paths against `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        let schema = json!({
            "type": "object",
            "required": ["path"],
            "properties": {
                "path": {
                    "type": "string",
                    "description": "Path to the file to read (relative or absolute)"
                },
                "offset": {
                    "type": "number",
                    "description": "Line number to start reading from (1-indexed)"
                },
                "limit": {
                    "type": "number",
                    "description": "Maximum number of lines to read"
                }
            }
        });
        ReadTool {
            cwd: cwd.into(),
            schema,
            images: ImageOptions::default(),
            gate: None,
        }
    }

    /// Sets Pi's `images.autoResize` (default on): fit images into 2000×2000 and 4.5 MiB of base64.
    pub fn with_auto_resize_images(mut self, enabled: bool) -> Self {
        self.images.auto_resize = enabled;
        self
    }

    /// Overrides the base64 size an auto-resized image must stay below (default 4.5 MiB).
    pub fn with_image_max_bytes(mut self, max_bytes: usize) -> Self {
        self.images.limits.max_bytes = max_bytes;
        self
    }

    /// Opens files through `gate`, which re-checks the opened file against its roots.
    pub fn with_gate(mut self, gate: impl Into<Option<Arc<GatePolicy>>>) -> Self {
        self.gate = gate.into();
        self
    }

    /// The working directory relative paths are resolved against.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Runs one call: what [`AgentTool::execute`] does, without needing a [`ToolUpdates`].
    ///
    /// `args` is `{path, offset?, limit?}`; fractional numbers are floored. Fails with
    /// `Operation aborted` if `cancel` fires before the file has been read.
    pub async fn read_file(
        &self,
        args: &Value,
        cancel: &CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        self.read_file_for(args, cancel, None).await
    }

    /// As [`read_file`](Self::read_file), for a call of `model` (when known): an image read
    /// for a model without image input says so in `details.imageUnsupportedByModel`.
    pub async fn read_file_for(
        &self,
        args: &Value,
        cancel: &CancellationToken,
        model: Option<&Model>,
    ) -> Result<ToolOutput, ToolError> {
        let mut output = self.read(args, cancel, model).await?;
        output.structured_content = Some(read_output(&output.content));
        Ok(output)
    }

    async fn read(
        &self,
        args: &Value,
        cancel: &CancellationToken,
        model: Option<&Model>,
    ) -> Result<ToolOutput, ToolError> {
        let args = parse_args(args)?;
        if cancel.is_cancelled() {
            return Err(ToolError::new(ABORTED));
        }
        let absolute = resolve_read_path(args.path, &self.cwd);
        let range = streamable_range(&args);
        let (gate, blocking_cancel) = (self.gate.clone(), cancel.clone());
        let load =
            tokio::task::spawn_blocking(move || load(&absolute, gate, range, &blocking_cancel));
        let loaded = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(ToolError::new(ABORTED)),
            loaded = load => loaded.map_err(|e| ToolError::new(e.to_string()))??,
        };
        let (bytes, mime) = match loaded {
            Loaded::Image(bytes, mime) => (bytes, mime),
            Loaded::Lines(selection) => {
                let (start, limit) = range.unwrap_or_default();
                return render_selection(selection, &args, start, limit);
            }
            Loaded::Text(text) => return render_text(&text, &args),
        };
        // Resizing takes a while; an abort during it fails the call at once, as in Pi.
        let mut output = tokio::select! {
            biased;
            () = cancel.cancelled() => Err(ToolError::new(ABORTED)),
            output = image_output(bytes, mime, self.images) => output,
        }?;
        let has_image = output
            .content
            .iter()
            .any(|b| matches!(b, ContentBlock::Image(_)));
        let blind = model.filter(|m| !m.input.iter().any(|input| input == "image"));
        if let (true, Some(model)) = (has_image, blind) {
            output.details = Some(json!({"imageUnsupportedByModel": model.id}));
        }
        Ok(output)
    }
}

#[async_trait]
impl AgentTool for ReadTool {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn parameters(&self) -> &Value {
        &self.schema
    }

    fn constrained_sampling(&self) -> Option<Value> {
        Some(serde_json::json!({"type": "json_schema", "strict": "prefer"}))
    }

    async fn execute(
        &self,
        _tool_call_id: &str,
        args: Value,
        cancel: CancellationToken,
        _updates: ToolUpdates,
    ) -> Result<ToolOutput, ToolError> {
        self.read_file(&args, &cancel).await
    }

    async fn execute_in(
        &self,
        _tool_call_id: &str,
        args: Value,
        cancel: CancellationToken,
        _updates: ToolUpdates,
        context: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        self.read_file_for(&args, &cancel, context.model.as_ref())
            .await
    }
}

/// Pi's `toReadOutput`: the text, or `{type: "image", data, mimeType, note}` with the text as
/// the note when the result carries an image.
fn read_output(content: &[ContentBlock]) -> Value {
    let text = content
        .iter()
        .find_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .unwrap_or_default();
    let image = content.iter().find_map(|block| match block {
        ContentBlock::Image(image) => Some(image),
        _ => None,
    });
    match image {
        Some(image) => json!({
            "type": "image",
            "data": image.data,
            "mimeType": image.mime_type,
            "note": text,
        }),
        None => Value::String(text.to_owned()),
    }
}

/// Extracts the arguments, failing (never panicking) on a missing path or a wrong type.
fn parse_args(args: &Value) -> Result<ReadArgs<'_>, ToolError> {
    let path = args
        .get("path")
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::new("Invalid arguments: \"path\" must be a string"))?;
    Ok(ReadArgs {
        path,
        offset: optional_integer(args, "offset")?,
        limit: optional_integer(args, "limit")?,
    })
}

/// An optional numeric argument, floored; absent and `null` are both `None`.
fn optional_integer(args: &Value, key: &str) -> Result<Option<i64>, ToolError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(number)) => Ok(number
            .as_i64()
            // Saturating float-to-int conversion after flooring.
            .or_else(|| number.as_f64().map(|f| f.floor() as i64))),
        Some(_) => Err(ToolError::new(format!(
            "Invalid arguments: \"{key}\" must be a number"
        ))),
    }
}

/// What a file turned out to be.
enum Loaded {
    /// An image: all its bytes.
    Image(Vec<u8>, ImageMime),
    /// Text, its lines selected while reading (a streamable range).
    Lines(Selection),
    /// Text read whole (a range only the whole-file path defines).
    Text(String),
}

/// The first selected line and the limit, when the range can be streamed (Pi's
/// `isStreamableRange`: no negative limit; offsets and limits are already whole numbers).
fn streamable_range(args: &ReadArgs<'_>) -> Option<(usize, Option<usize>)> {
    if args.limit.is_some_and(|limit| limit < 0) {
        return None;
    }
    let limit = args
        .limit
        .map(|limit| usize::try_from(limit).unwrap_or(usize::MAX));
    Some((start_line(args), limit))
}

/// Pi: `offset ? max(0, offset - 1) : 0`, so 0 and negative offsets start at the top.
fn start_line(args: &ReadArgs<'_>) -> usize {
    match args.offset {
        Some(offset) if offset > 0 => usize::try_from(offset - 1).unwrap_or(usize::MAX),
        _ => 0,
    }
}

/// Opens the file (through the gate), tells an image by its first bytes, and reads what the
/// call needs: the whole image, the selected lines in chunks, or the whole text. Blocking.
fn load(
    path: &Path,
    gate: Option<Arc<GatePolicy>>,
    range: Option<(usize, Option<usize>)>,
    cancel: &CancellationToken,
) -> Result<Loaded, ToolError> {
    let opened = match &gate {
        Some(gate) => gate.open_for_read(NAME, path),
        None => rho_gate::open_regular(path, libc::O_RDONLY),
    };
    let file = opened.map_err(|e| match e {
        GuardedOpenError::Refused(refusal) => ToolError::new(refusal.to_string()),
        GuardedOpenError::Io(e) => access_error(&e, path),
    })?;
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    let mut file = file;
    (&mut file)
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(|e| read_error(&e))?;
    if let Some(mime) = detect_image_mime(&head) {
        file.read_to_end(&mut head).map_err(|e| read_error(&e))?;
        return Ok(Loaded::Image(head, mime));
    }
    let Some((start, limit)) = range else {
        file.read_to_end(&mut head).map_err(|e| read_error(&e))?;
        return Ok(Loaded::Text(String::from_utf8_lossy(&head).into_owned()));
    };
    let reader = std::io::Cursor::new(head).chain(file);
    match select_lines(reader, start, limit, cancel) {
        Ok(selection) => Ok(Loaded::Lines(selection)),
        Err(SelectError::Aborted) => Err(ToolError::new(ABORTED)),
        Err(SelectError::Io(error)) => Err(read_error(&error)),
    }
}

/// The error of Node's `fs.access(path)`, e.g. `ENOENT: no such file or directory, access '/x'`.
fn access_error(error: &std::io::Error, path: &Path) -> ToolError {
    let code = match error.kind() {
        ErrorKind::NotFound => "ENOENT: no such file or directory",
        ErrorKind::PermissionDenied => "EACCES: permission denied",
        ErrorKind::NotADirectory => "ENOTDIR: not a directory",
        _ => return ToolError::new(error.to_string()),
    };
    ToolError::new(format!("{code}, access '{}'", path.display()))
}

/// The error of Node's `fs.readFile`, e.g. `EISDIR: illegal operation on a directory, read`.
fn read_error(error: &std::io::Error) -> ToolError {
    match error.kind() {
        ErrorKind::IsADirectory => ToolError::new("EISDIR: illegal operation on a directory, read"),
        _ => ToolError::new(error.to_string()),
    }
}

/// Selects the requested lines of the whole `text` (Pi's `selectLinesFromBuffer`), truncates
/// them and adds Pi's notices.
fn render_text(text: &str, args: &ReadArgs<'_>) -> Result<ToolOutput, ToolError> {
    let all_lines: Vec<&str> = text.split('\n').collect();
    let total = all_lines.len();
    let start = start_line(args);
    // A negative limit selects nothing, like a limit of 0.
    let limit = args
        .limit
        .map(|limit| usize::try_from(limit.max(0)).unwrap_or(usize::MAX));
    let begin = start.min(total);
    let end = limit.map_or(total, |limit| start.saturating_add(limit).min(total));
    let selection = Selection {
        total_file_lines: total,
        truncation: truncate_head(
            &all_lines[begin..end.max(begin)].join("\n"),
            DEFAULT_MAX_LINES,
            DEFAULT_MAX_BYTES,
        ),
        first_line_bytes: all_lines.get(start).map_or(0, |line| line.len()),
    };
    render_selection(selection, args, start, limit)
}

/// The result for the lines `selection` holds: Pi's texts, notices and details.
fn render_selection(
    selection: Selection,
    args: &ReadArgs<'_>,
    start: usize,
    limit: Option<usize>,
) -> Result<ToolOutput, ToolError> {
    let total = selection.total_file_lines;
    if start >= total {
        let offset = args.offset.unwrap_or_default();
        return Err(ToolError::new(format!(
            "Offset {offset} is beyond end of file ({total} lines total)"
        )));
    }
    let truncation = selection.truncation;
    let first = start + 1;

    if truncation.first_line_exceeds_limit {
        let text = format!(
            "[Line {first} is {}, exceeds {} limit. Use bash: sed -n '{first}p' {} | head -c {DEFAULT_MAX_BYTES}]",
            format_size(selection.first_line_bytes),
            format_size(DEFAULT_MAX_BYTES),
            args.path,
        );
        return with_truncation(text, truncation);
    }
    if truncation.truncated {
        let last = start + truncation.output_lines;
        let next = last + 1;
        let notice = match truncation.truncated_by {
            Some(TruncatedBy::Bytes) => format!(
                "[Showing lines {first}-{last} of {total} ({} limit). Use offset={next} to continue.]",
                format_size(DEFAULT_MAX_BYTES)
            ),
            _ => {
                format!("[Showing lines {first}-{last} of {total}. Use offset={next} to continue.]")
            }
        };
        let text = format!("{}\n\n{notice}", truncation.content);
        return with_truncation(text, truncation);
    }
    let end = limit.map(|limit| start.saturating_add(limit).min(total));
    if let Some(end) = end.filter(|&end| end < total) {
        let remaining = total - end;
        let next = end + 1;
        return Ok(ToolOutput::text(format!(
            "{}\n\n[{remaining} more lines in file. Use offset={next} to continue.]",
            truncation.content
        )));
    }
    Ok(ToolOutput::text(truncation.content))
}

/// A text result whose details are `{"truncation": …}`.
fn with_truncation(text: String, truncation: Truncation) -> Result<ToolOutput, ToolError> {
    let truncation = serde_json::to_value(truncation).map_err(|e| ToolError::new(e.to_string()))?;
    Ok(ToolOutput {
        details: Some(json!({ "truncation": truncation })),
        ..ToolOutput::text(text)
    })
}
