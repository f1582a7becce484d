//! Reading the model's output: text, and `<tool_call>{"name":…,"arguments":…}</tool_call>`
//! blocks, split as the text streams in.

use serde_json::{Map, Value};

use crate::grammar::{TOOL_CALL_CLOSE, TOOL_CALL_OPEN};

/// One piece of the model's output, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    /// Plain text, ready to show.
    Text(String),
    /// The body between `<tool_call>` and `</tool_call>`; `closed` is false when the output
    /// ended before the closing tag.
    Call {
        /// The raw body.
        body: String,
        /// Whether `</tool_call>` was seen.
        closed: bool,
    },
}

/// Splits streamed output into [`Piece`]s. Text that could be the start of `<tool_call>` is held
/// back until the next chunk decides, so a tag is never shown as text.
#[derive(Debug, Default)]
pub struct OutputSplitter {
    pending: String,
    in_call: bool,
}

impl OutputSplitter {
    /// A splitter at the start of an output.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next chunk; returns the pieces it completed.
    pub fn push(&mut self, chunk: &str) -> Vec<Piece> {
        self.pending.push_str(chunk);
        let mut pieces = Vec::new();
        loop {
            if self.in_call {
                let Some(end) = self.pending.find(TOOL_CALL_CLOSE) else {
                    return pieces;
                };
                let body = self.pending[..end].to_owned();
                self.pending.drain(..end + TOOL_CALL_CLOSE.len());
                self.in_call = false;
                pieces.push(Piece::Call { body, closed: true });
            } else if let Some(start) = self.pending.find(TOOL_CALL_OPEN) {
                if start > 0 {
                    pieces.push(Piece::Text(self.pending[..start].to_owned()));
                }
                self.pending.drain(..start + TOOL_CALL_OPEN.len());
                self.in_call = true;
            } else {
                let keep = partial_tag_len(&self.pending);
                let ready = self.pending.len() - keep;
                if ready > 0 {
                    pieces.push(Piece::Text(self.pending[..ready].to_owned()));
                    self.pending.drain(..ready);
                }
                return pieces;
            }
        }
    }

    /// Ends the output: whatever is held back becomes text, or an unclosed call.
    pub fn finish(&mut self) -> Option<Piece> {
        let rest = std::mem::take(&mut self.pending);
        if std::mem::take(&mut self.in_call) {
            return Some(Piece::Call {
                body: rest,
                closed: false,
            });
        }
        (!rest.is_empty()).then_some(Piece::Text(rest))
    }
}

/// Splits a whole output at once.
pub fn split_output(output: &str) -> Vec<Piece> {
    let mut splitter = OutputSplitter::new();
    let mut pieces: Vec<Piece> = Vec::new();
    for piece in splitter.push(output).into_iter().chain(splitter.finish()) {
        // Text held back as a possible tag and then released arrives as a second piece.
        if let (Some(Piece::Text(last)), Piece::Text(more)) = (pieces.last_mut(), &piece) {
            last.push_str(more);
        } else {
            pieces.push(piece);
        }
    }
    pieces
}

/// The length of the longest suffix of `text` that is a proper prefix of `<tool_call>`.
fn partial_tag_len(text: &str) -> usize {
    (1..TOOL_CALL_OPEN.len())
        .rev()
        .find(|&n| text.ends_with(&TOOL_CALL_OPEN[..n]))
        .unwrap_or(0)
}

/// Why a tool-call body is not a call.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ToolCallParseError {
    /// The body is not JSON.
    #[error("tool call is not valid JSON: {0}")]
    NotJson(String),
    /// The JSON is not an object with a string `name`.
    #[error("tool call has no \"name\"")]
    NoName,
    /// `arguments` is neither an object nor a JSON string holding one.
    #[error("tool call \"arguments\" is not an object")]
    ArgumentsNotObject,
}

/// Parses a body `{"name": …, "arguments": {…}}` into the tool name and arguments. Missing
/// arguments are `{}`; arguments given as a string of JSON (some models double-encode) are
/// decoded.
pub fn parse_tool_call(body: &str) -> Result<(String, Value), ToolCallParseError> {
    let value: Value = serde_json::from_str(body.trim())
        .map_err(|e| ToolCallParseError::NotJson(e.to_string()))?;
    let Value::Object(mut object) = value else {
        return Err(ToolCallParseError::NoName);
    };
    let name = match object.remove("name") {
        Some(Value::String(name)) if !name.is_empty() => name,
        _ => return Err(ToolCallParseError::NoName),
    };
    let arguments = match object.remove("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::Object(arguments)) => Value::Object(arguments),
        Some(Value::String(text)) => match serde_json::from_str(&text) {
            Ok(Value::Object(arguments)) => Value::Object(arguments),
            _ => return Err(ToolCallParseError::ArgumentsNotObject),
        },
        Some(_) => return Err(ToolCallParseError::ArgumentsNotObject),
    };
    Ok((name, arguments))
}
